// The series view: per loaded run, a Qt Charts chart of the jobs in flight against the
// fleet's capacity (ready pods x slots), the jobs queued and waiting out a backoff (on an
// axis of their own when they dwarf the others), and completions per second (right axis,
// a moving average over a window chosen above the charts), over time, with the deploy and
// chaos windows shaded, each deploy's start drawn as a line and the lanes' TERM, KILL and
// OOM markers as marks along the top. Clicking a legend entry hides or shows its series.
// Rubber-band zoom on the time axis (right click zooms out); each line is min/max-
// downsampled to the visible range at about two points per pixel column; the axes tick at
// round steps (axis_ticks.h). Only draws: the data comes from results_reader.h. GUI thread
// only.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QPointF>
#include <QWidget>

#include "reader/results_reader.h"

QT_BEGIN_NAMESPACE
class QChartView;
class QComboBox;
class QVBoxLayout;
QT_END_NAMESPACE

namespace drainsim::viewer {

class SeriesChart;

class SeriesView : public QWidget {
  Q_OBJECT

 public:
  // The smoothing windows offered, in seconds, and the one shown first.
  static constexpr double kSmoothingChoices[] = {1, 5, 10, 30, 60, 300};
  static constexpr double kDefaultSmoothing = 10;

  explicit SeriesView(QWidget* parent = nullptr);
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  // Shows [t0, t1] on every chart's time axis (the lines are re-sampled for it).
  void zoom_time(double t0, double t1);
  // Completions per second averaged over `seconds` (one of kSmoothingChoices; the nearest
  // whole number of the reader's bins, centred, fewer at the run's ends), on every chart.
  void set_smoothing(double seconds);
  double smoothing() const;
  // The points the line named `line` ("queued", "in flight", "retry backoff", "capacity",
  // "completions/s") of chart `chart` draws now: the corners of its staircase, up to the
  // end of the visible range (or of the run).
  QList<QPointF> points(std::size_t chart, const QString& line) const;
  // Run `i`'s chart (null if there is none), for its series, axes and mapping.
  QChartView* chart_view(std::size_t i) const;
  // A picture: the charts alone, without the smoothing chooser and the hints above them
  // (the rate axis's title names the smoothing). Default: off.
  void set_picture(bool on);

 private:
  QWidget* controls_;
  QComboBox* smoothing_;
  QVBoxLayout* charts_layout_;
  std::vector<SeriesChart*> charts_;
};

}  // namespace drainsim::viewer
