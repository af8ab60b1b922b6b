// The compare view (`drainsim compare --format json` output): grouped bars per profile, one
// bar per metric of the chosen group (counts, or seconds, or a single metric), the mean over
// the seeds; hovering a bar shows its 95 % interval. Several comparison files put their
// profiles side by side. Only draws: the data comes from results_reader.h. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QStringList>

#include "reader/results_reader.h"
#include "widgets/metric_chart.h"

namespace drainsim::viewer {

class CompareView : public MetricChart {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);
  void set_comparisons(std::vector<std::shared_ptr<const Comparison>> comparisons);
  // The choices (set_metric): "counts", "seconds" or one metric's name.
  // What is drawn: the categories (profiles) and, per bar set (metric), its values.
  QStringList categories() const { return categories_; }
  std::vector<std::pair<QString, QList<double>>> bars() const { return bars_; }

 private:
  void rebuild() override;

  std::vector<std::shared_ptr<const Comparison>> comparisons_;
  QStringList categories_;
  std::vector<std::pair<QString, QList<double>>> bars_;
};

}  // namespace drainsim::viewer
