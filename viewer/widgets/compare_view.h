// The compare view (`drainsim compare --format json` output): small multiples, one bar
// chart per metric with one bar per profile (the mean over the seeds, its value written
// above it) and the 95 % interval drawn as an error bar, each on its own round axis, so a
// 3,000 s metric does not flatten a 30 s one and each keeps its unit (seconds tick like a
// clock, fractions in percent). A chooser narrows the panels to the counts,
// the seconds or one metric. Several comparison files put their profiles side by side.
// Hovering a bar tells its interval. Only draws: the data comes from results_reader.h. GUI
// thread only.
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
  // The choices (set_metric): "all" (the default), "counts", "seconds" or one metric's name.
  // What is drawn: the categories (profiles, x = 0, 1, ... on each panel) and, per panel
  // (metric, in chart_views() order), the means as in the file (fractions as fractions).
  QStringList categories() const { return categories_; }
  std::vector<std::pair<QString, QList<double>>> bars() const { return bars_; }
  // The colour of the error bars.
  static QColor error_bar_color() { return QColor(0x20, 0x20, 0x20); }

 private:
  void rebuild() override;

  std::vector<std::shared_ptr<const Comparison>> comparisons_;
  QStringList categories_;
  std::vector<std::pair<QString, QList<double>>> bars_;
};

}  // namespace drainsim::viewer
