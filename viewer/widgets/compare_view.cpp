#include "widgets/compare_view.h"

#include <algorithm>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QFileInfo>
#include <QToolTip>
#include <QValueAxis>

namespace drainsim::viewer {

namespace {

bool is_seconds(const std::string& metric) { return metric.find("_s") != std::string::npos; }

}  // namespace

CompareView::CompareView(QWidget* parent) : MetricChart(parent) {}

void CompareView::set_comparisons(std::vector<std::shared_ptr<const Comparison>> comparisons) {
  comparisons_ = std::move(comparisons);
  QStringList choices = {QStringLiteral("counts"), QStringLiteral("seconds")};
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
      const bool wanted = choice == QStringLiteral("counts")    ? !is_seconds(m)
                          : choice == QStringLiteral("seconds") ? is_seconds(m)
                                                                : choice.toStdString() == m;
      if (wanted && std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
        metrics.push_back(m);
      }
    }
  }
  auto* chart = new QChart();
  auto* series = new QBarSeries();
  bars_.clear();
  QStringList categories;
  struct Column {
    const Comparison* file;
    const ProfileRow* row;
  };
  std::vector<Column> columns;
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
  double ymax = 0;
  for (const std::string& m : metrics) {
    auto* set = new QBarSet(QString::fromStdString(m));
    for (const Column& c : columns) {
      const Interval* v = c.row->metric(m);
      const double mean = v && v->n > 0 ? v->mean : 0;
      *set << mean;
      ymax = std::max(ymax, v && v->n > 0 ? v->high : 0);
    }
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
    series->append(set);
    QList<double> values;
    for (int i = 0; i < set->count(); ++i) values << set->at(i);
    bars_.emplace_back(set->label(), values);
  }
  categories_ = categories;
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  series->setLabelsPrecision(4);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis();
  x->append(categories);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis();
  y->setRange(0, ymax > 0 ? ymax * 1.15 : 1);
  y->setTitleText(choice == QStringLiteral("counts") ? QStringLiteral("jobs (mean over seeds)")
                  : choice == QStringLiteral("seconds")
                      ? QStringLiteral("seconds (mean over seeds)")
                      : choice);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  chart->setTitle(comparisons_.empty()
                      ? QStringLiteral("Open a comparison (drainsim compare --format json)")
                      : QStringLiteral("%1 — %2 seeds per profile")
                            .arg(QString::fromStdString(comparisons_[0]->scenario))
                            .arg(comparisons_[0]->seeds));
  show_chart(chart);
}

}  // namespace drainsim::viewer
