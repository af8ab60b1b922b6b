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

#include "reader/results_reader.h"
#include "widgets/metric_chart.h"

namespace drainsim::viewer {

class SweepView : public MetricChart {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);
  void set_sweeps(std::vector<std::shared_ptr<const Sweep>> sweeps);
  // The choices (set_metric): the metrics' dotted summary paths; job_loss first shown.
  // What is drawn: per line (named "FILE mean (n=N seeds)", with " AXIS=VALUE" for a second
  // axis), its mean points, and the band's upper and lower points.
  struct Line {
    QString name;
    QList<QPointF> mean, high, low;
  };
  std::vector<Line> lines() const { return lines_; }

 private:
  void rebuild() override;

  std::vector<std::shared_ptr<const Sweep>> sweeps_;
  std::vector<Line> lines_;
};

}  // namespace drainsim::viewer
