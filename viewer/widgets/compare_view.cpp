#include "widgets/compare_view.h"

#include <algorithm>
#include <cmath>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFileInfo>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>

#include "base/duration.h"
#include "widgets/tick_axis.h"

namespace drainsim::viewer {

namespace {

bool is_seconds(const std::string& metric) { return metric.find("_s") != std::string::npos; }
bool is_fraction(const std::string& metric) { return metric.find("fraction") != std::string::npos; }

// Half the width of an error bar's caps, in categories (a bar is 0.5 wide).
constexpr double kCap = 0.08;
// Room above the highest interval for the values written there.
constexpr double kRoom = 1.12;

// A mean as written on its bar: seconds as a duration to a sensible precision ("12m11s",
// "64.5s", "1.46s"), percentages and counts to 3 or 4 significant digits.
QString value_text(TickKind kind, double v) {
  switch (kind) {
    case TickKind::kTime: {
      const double a = std::abs(v);
      const double unit = a >= 60 ? 1 : a >= 10 ? 0.1 : a >= 1 ? 0.01 : 0.001;
      return QString::fromStdString(format_seconds(std::round(v / unit) * unit));
    }
    case TickKind::kPercent:
      return QString::number(v, 'g', 3) + QStringLiteral("%");
    case TickKind::kCount:
    case TickKind::kValue:
      break;
  }
  return QString::number(v, 'g', 4);
}

}  // namespace

CompareView::CompareView(QWidget* parent) : MetricChart(parent) {}

void CompareView::set_comparisons(std::vector<std::shared_ptr<const Comparison>> comparisons) {
  comparisons_ = std::move(comparisons);
  QStringList choices = {QStringLiteral("all"), QStringLiteral("counts"),
                         QStringLiteral("seconds")};
  for (const auto& c : comparisons_) {
    for (const std::string& m : c->metrics) {
      const QString name = QString::fromStdString(m);
      if (!choices.contains(name)) choices.push_back(name);
    }
  }
  set_choices(choices);
}

void CompareView::rebuild() {
  const QString choice = metric();
  std::vector<std::string> metrics;
  for (const auto& c : comparisons_) {
    for (const std::string& m : c->metrics) {
      const bool wanted = choice == QStringLiteral("all")       ? true
                          : choice == QStringLiteral("counts")  ? !is_seconds(m)
                          : choice == QStringLiteral("seconds") ? is_seconds(m)
                                                                : choice.toStdString() == m;
      if (wanted && std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
        metrics.push_back(m);
      }
    }
  }
  struct Column {
    const Comparison* file;
    const ProfileRow* row;
  };
  std::vector<Column> columns;
  QStringList categories;
  for (std::size_t f = 0; f < comparisons_.size(); ++f) {
    for (const ProfileRow& row : comparisons_[f]->profiles) {
      columns.push_back({comparisons_[f].get(), &row});
      categories << (comparisons_.size() > 1
                         ? QStringLiteral("%1 (%2)").arg(
                               QString::fromStdString(row.profile),
                               QFileInfo(QString::fromStdString(comparisons_[f]->path)).baseName())
                         : QString::fromStdString(row.profile));
    }
  }
  categories_ = categories;
  bars_.clear();
  QList<QChart*> charts;
  for (const std::string& m : metrics) {
    const QString name = QString::fromStdString(m);
    const TickKind kind = is_seconds(m)    ? TickKind::kTime
                          : is_fraction(m) ? TickKind::kPercent
                                           : TickKind::kValue;
    const double scale = kind == TickKind::kPercent ? 100 : 1;  // fractions drawn in percent
    auto* chart = new QChart();
    chart->setTitle(name);
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* set = new QBarSet(name);
    set->setColor(kind == TickKind::kTime      ? QColor(0xfd, 0xd0, 0xa2)
                  : kind == TickKind::kPercent ? QColor(0xc7, 0xe9, 0xc0)
                                               : QColor(0xc6, 0xdb, 0xef));
    set->setBorderColor(set->color().darker(130));
    set->setLabelColor(Qt::black);
    QList<double> means;
    double top = 0;
    for (const Column& c : columns) {
      const Interval* v = c.row->metric(m);
      const double mean = v && v->n > 0 ? v->mean : 0;
      *set << mean * scale;
      means << mean;
      if (v && v->n > 0) top = std::max({top, v->high * scale, v->mean * scale});
    }
    bars_.emplace_back(name, means);
    if (top == 0) chart->setTitle(name + QStringLiteral(" (0 for every profile)"));
    connect(set, &QBarSet::hovered, this, [columns, m](bool on, int index) {
      if (!on || index < 0 || index >= static_cast<int>(columns.size())) {
        QToolTip::hideText();
        return;
      }
      const Interval* v = columns[index].row->metric(m);
      QToolTip::showText(QCursor::pos(),
                         v && v->n > 0
                             ? QStringLiteral("%1, %2: %3 ±%4 (95 %: %5 .. %6, n=%7)")
                                   .arg(QString::fromStdString(columns[index].row->profile),
                                        QString::fromStdString(m))
                                   .arg(v->mean)
                                   .arg(v->half_width)
                                   .arg(v->low)
                                   .arg(v->high)
                                   .arg(v->n)
                             : QStringLiteral("%1, %2: no value")
                                   .arg(QString::fromStdString(columns[index].row->profile),
                                        QString::fromStdString(m)));
    });
    auto* series = new QBarSeries();
    series->append(set);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis();
    x->append(categories);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto* y = new TickAxis(kind, 35);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    y->fit(0, top * kRoom);
    // The 95 % intervals: a line from low to high with caps, at each bar's centre; the
    // mean written above it.
    std::vector<std::pair<QGraphicsSimpleTextItem*, QPointF>> labels;
    for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
      const Interval* v = columns[i].row->metric(m);
      if (!v || v->n == 0) continue;
      const double lo = v->low * scale, hi = v->high * scale;
      auto* label = new QGraphicsSimpleTextItem(value_text(kind, v->mean * scale), chart);
      label->setZValue(100);
      labels.emplace_back(label, QPointF(i, std::max(hi, v->mean * scale)));
      auto* bar = new QLineSeries();
      bar->setName(QStringLiteral("95 % interval"));
      bar->setPen(QPen(error_bar_color(), 2));
      bar->append({QPointF(i - kCap, lo), QPointF(i + kCap, lo), QPointF(i, lo), QPointF(i, hi),
                   QPointF(i - kCap, hi), QPointF(i + kCap, hi)});
      chart->addSeries(bar);
      bar->attachAxis(x);
      bar->attachAxis(y);
    }
    connect(chart, &QChart::plotAreaChanged, y,
            [y](const QRectF& r) { y->set_length(r.height()); });
    auto place = [chart, series, labels] {
      for (const auto& [label, at] : labels) {
        const QPointF p = chart->mapToPosition(at, series);
        const QRectF r = label->boundingRect();
        label->setPos(p.x() - r.width() / 2, p.y() - r.height() - 2);
      }
    };
    connect(chart, &QChart::plotAreaChanged, this, place);
    connect(y, &QValueAxis::rangeChanged, this, place);
    charts << chart;
  }
  if (charts.isEmpty()) {
    auto* chart = new QChart();
    chart->setTitle(comparisons_.empty()
                        ? QStringLiteral("Open a comparison (drainsim compare --format json)")
                        : QStringLiteral("No metric to show"));
    charts << chart;
  }
  set_caption(comparisons_.empty()
                  ? QString()
                  : QStringLiteral("%1 — per profile, the mean over %2 seeds with its 95 % "
                                   "interval; each metric on its own axis")
                        .arg(QString::fromStdString(comparisons_[0]->scenario))
                        .arg(comparisons_[0]->seeds));
  show_charts(charts);
}

}  // namespace drainsim::viewer
