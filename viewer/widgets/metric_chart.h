// Charts under a metric chooser: the base of the views that plot one chosen metric (or
// group of metrics) of the loaded files (compare, sweep). Subclasses offer the choices and
// draw one chart, or several side by side in a grid (small multiples); this keeps the choice
// across reloads and redraws when it changes. GUI thread only.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QComboBox;
class QGridLayout;
class QLabel;
QT_END_NAMESPACE

namespace drainsim::viewer {

class MetricChart : public QWidget {
  Q_OBJECT

 public:
  // The current choice.
  QString metric() const;
  // Chooses and draws `metric`; false (and nothing changes) if it is not offered.
  bool set_metric(const QString& metric);
  // The charts shown now, in reading order (left to right, then down).
  QList<QChartView*> chart_views() const { return views_; }
  // A picture: the charts and the line saying what they show, without the chooser.
  // Default: off.
  void set_picture(bool on);

 protected:
  explicit MetricChart(QWidget* parent);
  // Offers `choices`, keeping the current choice if it is still offered, else `fallback`
  // if offered, else the first; then draws.
  void set_choices(const QStringList& choices, const QString& fallback = {});
  // Shows `charts` (taking them) in a grid of about as many columns as rows, in place of
  // those shown before, which are deleted.
  void show_charts(const QList<QChart*>& charts);
  void show_chart(QChart* chart) { show_charts({chart}); }
  // The line beside the chooser saying what is shown.
  void set_caption(const QString& text);
  // Draws the charts for the current choice (with show_charts).
  virtual void rebuild() = 0;

 private:
  QComboBox* metric_;
  QLabel* caption_;
  QGridLayout* grid_;
  QList<QChartView*> views_;
};

}  // namespace drainsim::viewer
