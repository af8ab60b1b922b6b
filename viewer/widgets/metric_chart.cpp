#include "widgets/metric_chart.h"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace drainsim::viewer {

MetricChart::MetricChart(QWidget* parent)
    : QWidget(parent),
      metric_(new QComboBox(this)),
      caption_(new QLabel(this)),
      grid_(new QGridLayout()) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  top->addWidget(metric_);
  top->addSpacing(12);
  top->addWidget(caption_, 1);
  layout->addLayout(top);
  grid_->setSpacing(2);
  layout->addLayout(grid_, 1);
  show_chart(new QChart());
  connect(metric_, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
}

QString MetricChart::metric() const { return metric_->currentText(); }

void MetricChart::set_picture(bool on) {
  metric_->setVisible(!on);
  // The charts keep their place: the caption's line as high as with the chooser.
  caption_->setMinimumHeight(on ? metric_->sizeHint().height() : 0);
}

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

void MetricChart::set_caption(const QString& text) { caption_->setText(text); }

void MetricChart::show_charts(const QList<QChart*>& charts) {
  for (QChartView* v : views_) delete v;  // and its chart
  views_.clear();
  const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(charts.size()))));
  for (int i = 0; i < charts.size(); ++i) {
    auto* view = new QChartView(charts[i], this);
    view->setRenderHint(QPainter::Antialiasing);
    grid_->addWidget(view, i / columns, i % columns);
    views_.push_back(view);
  }
  // Rows and columns of a larger grid shown before keep no space.
  for (int r = 0; r < grid_->rowCount(); ++r) grid_->setRowStretch(r, r * columns < charts.size());
  for (int c = 0; c < grid_->columnCount(); ++c) grid_->setColumnStretch(c, c < columns);
}

}  // namespace drainsim::viewer
