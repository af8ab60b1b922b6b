// The series view: per loaded run, a Qt Charts chart of the jobs queued, waiting out a
// backoff and in flight, the fleet's capacity (ready pods x slots) and completions per
// second (right axis) over time, with the deploy and chaos windows shaded. Rubber-band
// zoom on the time axis (right click zooms out); each line is min/max-downsampled to the
// visible range at about two points per pixel column. Only draws: the data comes from
// results_reader.h. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QPointF>
#include <QWidget>

#include "reader/results_reader.h"

QT_BEGIN_NAMESPACE
class QVBoxLayout;
QT_END_NAMESPACE

namespace drainsim::viewer {

class SeriesChart;

class SeriesView : public QWidget {
  Q_OBJECT

 public:
  explicit SeriesView(QWidget* parent = nullptr);
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  // Shows [t0, t1] on every chart's time axis (the lines are re-sampled for it).
  void zoom_time(double t0, double t1);
  // The points the line named `line` ("queued", "in flight", "retry backoff", "capacity",
  // "completions/s") of chart `chart` draws now: the corners of its staircase.
  QList<QPointF> points(std::size_t chart, const QString& line) const;

 private:
  QVBoxLayout* layout_;
  std::vector<SeriesChart*> charts_;
};

}  // namespace drainsim::viewer
