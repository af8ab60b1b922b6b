#include "widgets/sweep_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QFileInfo>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include "base/duration.h"
#include "widgets/tick_axis.h"

namespace drainsim::viewer {

namespace {

const QColor kLineColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                              QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                              QColor(0xff, 0x7f, 0x0e), QColor(0x8c, 0x56, 0x4b)};

// Whether every label of the first axis is a number or a duration (then x is numeric).
bool numeric_axis(const Sweep& s) {
  for (const SweepPointData& p : s.points) {
    if (p.labels.empty()) return false;
    const std::string& l = p.labels[0];
    if (l.empty() ||
        !(std::isdigit(static_cast<unsigned char>(l[0])) || l[0] == '-' || l[0] == '.')) {
      return false;
    }
  }
  return true;
}

// Whether every label of the first axis is a duration with a unit ("10s", "1m30s"): then x
// is in seconds and ticks like a clock.
bool duration_axis(const Sweep& s) {
  bool unit = false;
  for (const SweepPointData& p : s.points) {
    if (p.labels.empty() || !parse_duration(p.labels[0])) return false;
    unit = unit || p.labels[0].find_first_not_of("0123456789.") != std::string::npos;
  }
  return unit;
}

bool is_seconds(const std::string& metric) { return metric.find("_s") != std::string::npos; }

}  // namespace

SweepView::SweepView(QWidget* parent) : MetricChart(parent) {}

void SweepView::set_sweeps(std::vector<std::shared_ptr<const Sweep>> sweeps) {
  sweeps_ = std::move(sweeps);
  std::set<std::string> names;
  for (const auto& s : sweeps_) names.insert(s->metrics.begin(), s->metrics.end());
  QStringList choices;
  for (const std::string& m : names) choices.push_back(QString::fromStdString(m));
  set_choices(choices, QStringLiteral("job_loss"));
}

void SweepView::rebuild() {
  lines_.clear();
  auto* chart = new QChart();
  const std::string metric = this->metric().toStdString();
  const bool durations =
      !sweeps_.empty() && !sweeps_[0]->axes.empty() && duration_axis(*sweeps_[0]);
  auto* x = new TickAxis(durations ? TickKind::kTime : TickKind::kValue, 90);
  auto* y = new TickAxis(is_seconds(metric) ? TickKind::kTime : TickKind::kValue, 60);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  y->setTitleText(QString::fromStdString(metric) +
                  (is_seconds(metric) ? QStringLiteral(", time") : QString()) +
                  QStringLiteral(" (mean, 95 % band over the seeds)"));
  double xmin = 1e300, xmax = -1e300, ymin = 0, ymax = 0;
  int color = 0;
  QCategoryAxis* categories = nullptr;
  for (const auto& sp : sweeps_) {
    const Sweep& s = *sp;
    if (s.axes.empty()) continue;
    const bool numeric = numeric_axis(s);
    x->setTitleText(QString::fromStdString(s.axes[0]) + (durations ? QStringLiteral(", duration")
                                                         : numeric ? QString()
                                                                   : QStringLiteral(" (values)")));
    // One line per value of the second axis (if any).
    std::map<std::string, std::vector<const SweepPointData*>> groups;
    std::vector<std::string> order;
    for (const SweepPointData& p : s.points) {
      const std::string key = p.labels.size() > 1 ? s.axes[1] + "=" + p.labels[1] : std::string();
      if (!groups.count(key)) order.push_back(key);
      groups[key].push_back(&p);
    }
    if (!numeric && !categories) {
      categories = new QCategoryAxis();
      for (const SweepPointData& p : s.points) {
        if (p.x.empty()) continue;
        categories->append(QString::fromStdString(p.labels[0]), p.x[0] + 0.5);
      }
    }
    for (const std::string& key : order) {
      const QColor c = kLineColors[color++ % std::size(kLineColors)];
      auto* mean = new QLineSeries();
      auto* upper = new QLineSeries();
      auto* lower = new QLineSeries();
      for (const SweepPointData* p : groups[key]) {
        const Interval* v = p->metric(metric);
        if (!v || v->n == 0 || p->x.empty()) continue;
        mean->append(p->x[0], v->mean);
        upper->append(p->x[0], v->high);
        lower->append(p->x[0], v->low);
        xmin = std::min(xmin, p->x[0]);
        xmax = std::max(xmax, p->x[0]);
        ymin = std::min(ymin, v->low);
        ymax = std::max(ymax, v->high);
      }
      QString name = QFileInfo(QString::fromStdString(s.path)).fileName();
      if (!key.empty()) name += QStringLiteral(" ") + QString::fromStdString(key);
      auto* band = new QAreaSeries(upper, lower);
      band->setName(name + QStringLiteral(" 95 %"));
      QColor fill = c;
      fill.setAlpha(60);
      band->setColor(fill);
      band->setBorderColor(Qt::transparent);
      chart->addSeries(band);
      band->attachAxis(x);
      band->attachAxis(y);
      mean->setName(name + QStringLiteral(" mean (n=%1 seeds)").arg(s.seeds));
      mean->setPen(QPen(c, 2));
      mean->setPointsVisible(true);
      chart->addSeries(mean);
      mean->attachAxis(x);
      mean->attachAxis(y);
      lines_.push_back({mean->name(), mean->points(), upper->points(), lower->points()});
    }
  }
  if (xmin > xmax) {
    xmin = 0;
    xmax = 1;
  }
  const double pad = xmax > xmin ? (xmax - xmin) * 0.03 : 1;
  x->setRange(xmin - pad, xmax + pad);
  // Round ends, from 0 unless the band reaches below.
  y->fit(ymin, ymax);
  connect(chart, &QChart::plotAreaChanged, x, [x, y](const QRectF& r) {
    x->set_length(r.width());
    y->set_length(r.height());
  });
  if (categories) {
    categories->setRange(xmin - pad, xmax + pad);
    categories->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    chart->addAxis(categories, Qt::AlignBottom);
    x->setVisible(false);
  }
  chart->setTitle(
      sweeps_.empty()
          ? QStringLiteral("Open a sweep file (drainsim sweep --out FILE)")
          : QStringLiteral("sweep of %1").arg(QString::fromStdString(sweeps_[0]->scenario)));
  show_chart(chart);
}

}  // namespace drainsim::viewer
