// The sweep view (`drainsim sweep` output): a chosen metric's mean against the first swept
// field, with its Student-t 95 % band over the seeds shaded; one line per value of a second
// axis and per loaded sweep file. Only draws: the data comes from results_reader.h. GUI
// thread only.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QPointF>
#include <QString>
#include <QWidget>

#include "results_reader.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QChartView;
QT_END_NAMESPACE

namespace drainsim::viewer {

class SweepView : public QWidget {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);
  void set_sweeps(std::vector<std::shared_ptr<const Sweep>> sweeps);
  // Shows `metric` (a dotted summary path); false if no sweep has it.
  bool set_metric(const QString& metric);
  QString metric() const;
  // What is drawn: per line (named "FILE mean (n=N seeds)", with " AXIS=VALUE" for a second
  // axis), its mean points, and the band's upper and lower points.
  struct Line {
    QString name;
    QList<QPointF> mean, high, low;
  };
  std::vector<Line> lines() const { return lines_; }

 private:
  void rebuild();

  std::vector<std::shared_ptr<const Sweep>> sweeps_;
  std::vector<Line> lines_;
  QComboBox* metric_;
  QChartView* view_;
};

}  // namespace drainsim::viewer
