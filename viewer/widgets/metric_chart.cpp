#include "widgets/metric_chart.h"

#include <algorithm>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace drainsim::viewer {

MetricChart::MetricChart(QWidget* parent)
    : QWidget(parent), metric_(new QComboBox(this)), view_(new QChartView(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(metric_);
  layout->addWidget(view_, 1);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setChart(new QChart());
  connect(metric_, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
}

QString MetricChart::metric() const { return metric_->currentText(); }

bool MetricChart::set_metric(const QString& metric) {
  const int i = metric_->findText(metric);
  if (i < 0) return false;
  metric_->setCurrentIndex(i);
  rebuild();
  return true;
}

void MetricChart::set_choices(const QStringList& choices, const QString& fallback) {
  const QString keep = metric_->currentText();
  {
    QSignalBlocker block(metric_);
    metric_->clear();
    metric_->addItems(choices);
    int i = metric_->findText(keep);
    if (i < 0 && !fallback.isEmpty()) i = metric_->findText(fallback);
    metric_->setCurrentIndex(std::max(0, i));
  }
  rebuild();
}

void MetricChart::show_chart(QChart* chart) {
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
}

}  // namespace drainsim::viewer
