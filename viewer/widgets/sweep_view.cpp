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
  auto* x = new QValueAxis();
  auto* y = new QValueAxis();
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  y->setTitleText(QString::fromStdString(metric) +
                  QStringLiteral(" (mean, 95 % band over the seeds)"));
  double xmin = 1e300, xmax = -1e300, ymin = 0, ymax = 0;
  int color = 0;
  QCategoryAxis* categories = nullptr;
  for (const auto& sp : sweeps_) {
    const Sweep& s = *sp;
    if (s.axes.empty()) continue;
    const bool numeric = numeric_axis(s);
    x->setTitleText(QString::fromStdString(s.axes[0]) +
                    (numeric ? QString() : QStringLiteral(" (values)")));
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
  y->setRange(ymin, ymax > ymin ? ymax * 1.08 : ymin + 1);
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
