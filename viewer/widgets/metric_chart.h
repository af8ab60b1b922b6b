// A chart under a metric chooser: the base of the views that plot one chosen metric (or
// group of metrics) of the loaded files (compare, sweep). Subclasses offer the choices and
// draw the chart; this keeps the choice across reloads and redraws when it changes. GUI
// thread only.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QComboBox;
QT_END_NAMESPACE

namespace drainsim::viewer {

class MetricChart : public QWidget {
  Q_OBJECT

 public:
  // The current choice.
  QString metric() const;
  // Chooses and draws `metric`; false (and nothing changes) if it is not offered.
  bool set_metric(const QString& metric);

 protected:
  explicit MetricChart(QWidget* parent);
  // Offers `choices`, keeping the current choice if it is still offered, else `fallback`
  // if offered, else the first; then draws.
  void set_choices(const QStringList& choices, const QString& fallback = {});
  // Shows `chart` (taking it) in place of the one shown before, which is deleted.
  void show_chart(QChart* chart);
  // Draws the chart for the current choice (with show_chart).
  virtual void rebuild() = 0;

 private:
  QComboBox* metric_;
  QChartView* view_;
};

}  // namespace drainsim::viewer
