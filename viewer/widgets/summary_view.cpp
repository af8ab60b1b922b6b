#include "widgets/summary_view.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "widgets/summary_metrics.h"

namespace drainsim::viewer {

namespace {

// One run's value of one row: a number, or text (null is "–"); absent when the run's file
// has no such key.
struct Cell {
  bool present = false;
  std::optional<double> number;
  std::string text;
};

// A run's summary by key, a distribution given as null ("drain_latency_s": null) spread
// over its known keys, so that "Drain p99" reads "–" rather than the row going missing.
std::map<std::string, Cell> cells_of(const Results& r, std::vector<std::string>& first_seen) {
  std::map<std::string, Cell> out;
  auto add = [&](const std::string& key, Cell c) {
    if (std::find(first_seen.begin(), first_seen.end(), key) == first_seen.end()) {
      first_seen.push_back(key);
    }
    out[key] = std::move(c);
  };
  for (const SummaryRow& s : r.summary) {
    const std::vector<std::string> children =
        s.number ? std::vector<std::string>{} : known_children(s.key);
    if (children.empty()) {
      add(s.key, {true, s.number, s.value});
    } else {
      for (const std::string& k : children) add(k, {true, std::nullopt, s.value});
    }
  }
  return out;
}

QString file_name(const Results& r) { return QFileInfo(QString::fromStdString(r.path)).fileName(); }

QBrush group_brush() { return QBrush(QColor(0xe8, 0xea, 0xed)); }

// The smallest of the largest sums over the ways to cut `heights` into at most `parts`
// runs of consecutive groups, and the cut: how many groups each run takes, in order.
std::pair<int, std::vector<int>> best_split(const std::vector<int>& heights, int parts) {
  const int m = static_cast<int>(heights.size());
  if (m == 0) return {0, {}};
  if (parts <= 1) {
    return {std::accumulate(heights.begin(), heights.end(), 0), {m}};
  }
  std::pair<int, std::vector<int>> best{std::numeric_limits<int>::max(), {}};
  int first = 0;
  for (int take = 1; take <= m; ++take) {
    first += heights[take - 1];
    if (first >= best.first) break;
    if (take == m) {
      best = {first, {m}};
      break;
    }
    const std::vector<int> rest(heights.begin() + take, heights.end());
    auto [tail, cut] = best_split(rest, parts - 1);
    if (std::max(first, tail) < best.first) {
      cut.insert(cut.begin(), take);
      best = {std::max(first, tail), std::move(cut)};
    }
  }
  return best;
}

}  // namespace

QStringList SummaryView::cause_figures() {
  return {QStringLiteral("Job loss"),
          QStringLiteral("Lost"),
          QStringLiteral("Discarded by shutdown"),
          QStringLiteral("Interrupted"),
          QStringLiteral("Duplicates"),
          QStringLiteral("Shutdown retries")};
}

SummaryView::SummaryView(QWidget* parent)
    : QWidget(parent),
      audit_(new QLabel(this)),
      causes_(new QTreeWidget(this)),
      columns_(new QHBoxLayout()) {
  auto* layout = new QVBoxLayout(this);
  audit_->setTextFormat(Qt::RichText);
  audit_->setWordWrap(true);
  audit_->setMargin(4);
  audit_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(audit_);
  causes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  causes_->setAlternatingRowColors(true);
  causes_->setRootIsDecorated(false);
  causes_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  causes_->hide();
  layout->addWidget(causes_);
  layout->addLayout(columns_, 1);
  trees_.push_back(new_tree());
}

QTreeWidget* SummaryView::new_tree() {
  auto* tree = new QTreeWidget(this);
  tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tree->setAlternatingRowColors(true);
  tree->setUniformRowHeights(false);
  tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  tree->header()->setDefaultAlignment(Qt::AlignCenter);
  tree->header()->setStretchLastSection(false);
  columns_->addWidget(tree, 1);
  return tree;
}

std::vector<const QTreeWidget*> SummaryView::trees() const {
  return {trees_.begin(), trees_.end()};
}

void SummaryView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
  runs_ = runs;
  const int n = static_cast<int>(runs.size());
  std::vector<std::string> first_seen;
  std::vector<std::map<std::string, Cell>> cells;
  for (const auto& r : runs) cells.push_back(cells_of(*r, first_seen));

  // Rows: the known metrics in the table's order, then unknown keys as first seen.
  std::map<std::string, std::vector<std::string>> rows_of_group;
  const std::set<std::string> seen(first_seen.begin(), first_seen.end());
  std::set<std::string> known;
  for (const MetricInfo& m : known_metrics()) {
    known.insert(m.key);
    if (seen.count(m.key)) rows_of_group[m.group].push_back(m.key);
  }
  for (const std::string& k : first_seen) {
    if (!known.count(k)) rows_of_group["other"].push_back(k);
  }
  const bool any_failed =
      std::any_of(runs.begin(), runs.end(), [](const auto& r) { return !r->audit_ok; });

  // Every group in the first tree, to measure them; flow() sets them out.
  while (trees_.size() > 1) {
    delete trees_.back();
    trees_.pop_back();
  }
  QTreeWidget* tree = trees_.front();
  tree->clear();
  groups_.clear();
  split_.clear();
  tree->setColumnCount(1 + n);
  headers_ = QStringList{QStringLiteral("Metric")};
  for (const auto& r : runs) {
    headers_ << QStringLiteral("%1\n%2 seed %3")
                    .arg(file_name(*r), QString::fromStdString(r->scenario_name))
                    .arg(r->seed);
  }
  tree->setHeaderLabels(headers_);

  QFont group_font = tree->font();
  group_font.setBold(true);
  QFont headline_font = group_font;
  headline_font.setPointSizeF(tree->font().pointSizeF() * 1.35);

  auto add_group = [&](const std::string& group) {
    auto* g = new QTreeWidgetItem(tree);
    g->setText(0, QString::fromStdString(group_title(group)));
    g->setFont(0, group_font);
    g->setFirstColumnSpanned(true);
    for (int c = 0; c <= n; ++c) g->setBackground(c, group_brush());
    groups_.push_back(g);
    return g;
  };
  // One row; a later run's cell that differs from the first's is highlighted and says by
  // how much.
  auto add_row = [&](QTreeWidgetItem* parent, const QString& label, const MetricInfo* m,
                     const std::vector<Cell>& row) {
    auto* item = new QTreeWidgetItem(parent);
    item->setText(0, label);
    for (int c = 0; c < n; ++c) {
      const Cell& cell = row[c];
      QString text;
      if (!cell.present) {
        item->setToolTip(c + 1, QStringLiteral("not in %1").arg(file_name(*runs[c])));
      } else if (cell.number && m) {
        text = QString::fromStdString(format_value(*m, *cell.number));
      } else {
        text = QString::fromStdString(cell.text);
      }
      const Cell& base = row[0];
      QString diff;
      if (c > 0) {
        if (cell.number && base.number && m) {
          diff = QString::fromStdString(format_difference(*m, *cell.number, *base.number));
        } else if (cell.present != base.present ||
                   cell.number.has_value() != base.number.has_value() || cell.text != base.text) {
          diff = QStringLiteral("≠");
        }
      }
      item->setData(c + 1, kDifferenceRole, diff);
      if (!diff.isEmpty()) {
        item->setBackground(c + 1, difference_color());
        if (diff != QStringLiteral("≠")) text += QStringLiteral("  (%1)").arg(diff);
        QString tip = QStringLiteral("%1 against %2").arg(diff, file_name(*runs[0]));
        if (cell.number && base.number && *base.number != 0) {
          tip += QStringLiteral(" (%1%2 %)")
                     .arg(*cell.number > *base.number ? QStringLiteral("+") : QString())
                     .arg(100 * (*cell.number - *base.number) / std::abs(*base.number), 0, 'g', 3);
        }
        item->setToolTip(c + 1, tip);
      }
      item->setText(c + 1, text);
      item->setTextAlignment(c + 1, Qt::AlignRight | Qt::AlignVCenter);
    }
    return item;
  };

  auto add_audit = [&] {
    QTreeWidgetItem* g = add_group("audit");
    std::vector<Cell> verdict, errors, balance, warnings;
    for (const auto& r : runs) {
      verdict.push_back({true, std::nullopt, r->audit_ok ? "ok" : "FAILED"});
      errors.push_back({true, static_cast<double>(r->audit_errors.size()), {}});
      balance.push_back({true, std::nullopt, r->audit_balance});
      warnings.push_back({true, static_cast<double>(r->warnings.size()), {}});
    }
    const MetricInfo error_unit{"", "", "audit", Unit::kCount, "error", "errors"};
    const MetricInfo warning_unit{"", "", "audit", Unit::kCount, "warning", "warnings"};
    QTreeWidgetItem* v = add_row(g, QStringLiteral("Audit (conservation)"), nullptr, verdict);
    QTreeWidgetItem* e = add_row(g, QStringLiteral("Errors"), &error_unit, errors);
    QTreeWidgetItem* b = add_row(g, QStringLiteral("Balance"), nullptr, balance);
    QTreeWidgetItem* w = add_row(g, QStringLiteral("Warnings"), &warning_unit, warnings);
    for (int c = 0; c < n; ++c) {
      const Results& r = *runs[c];
      v->setFont(c + 1, group_font);
      v->setForeground(c + 1, r.audit_ok ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
      if (!r.audit_ok) v->setBackground(c + 1, failed_color());
      QStringList lines;
      for (const std::string& x : r.audit_errors) lines << QString::fromStdString(x);
      if (!lines.isEmpty()) e->setToolTip(c + 1, lines.join('\n'));
      b->setToolTip(c + 1, QString::fromStdString(r.audit_balance));
      lines.clear();
      for (const std::string& x : r.warnings) lines << QString::fromStdString(x);
      if (!lines.isEmpty()) w->setToolTip(c + 1, lines.join('\n'));
    }
  };

  if (any_failed) add_audit();
  for (const std::string& group : summary_groups()) {
    if (group == "audit") {
      if (!any_failed && n > 0) add_audit();
      continue;
    }
    const auto it = rows_of_group.find(group);
    if (it == rows_of_group.end()) continue;
    QTreeWidgetItem* g = add_group(group);
    for (const std::string& key : it->second) {
      const MetricInfo m = metric_info(key);
      std::vector<Cell> row;
      for (const auto& c : cells) {
        const auto found = c.find(key);
        row.push_back(found == c.end() ? Cell{} : found->second);
      }
      QTreeWidgetItem* item = add_row(g, QString::fromStdString(m.label), &m, row);
      item->setData(0, kKeyRole, QString::fromStdString(key));
      const QString tip = QString::fromStdString(key);
      item->setToolTip(0, tip);
      if (group == "headline") {
        for (int c = 0; c <= n; ++c) item->setFont(c, headline_font);
      }
    }
  }
  tree->expandAll();
  // What the trees need: each group's height, and the width that shows a run's values whole
  // (a long balance is elided; it is in full in its tooltip and above the trees).
  group_heights_.clear();
  for (QTreeWidgetItem* g : groups_) {
    int h = tree->visualItemRect(g).height();
    for (int i = 0; i < g->childCount(); ++i) h += tree->visualItemRect(g->child(i)).height();
    group_heights_.push_back(h);
  }
  header_height_ = tree->header()->sizeHint().height();
  tree_width_ = 2 * tree->frameWidth() + tree->verticalScrollBar()->sizeHint().width();
  for (int c = 0; c <= n; ++c) {
    tree->resizeColumnToContents(c);
    tree_width_ +=
        c == 0 ? tree->columnWidth(c) + 24 : std::clamp(tree->columnWidth(c) + 24, 120, 200);
  }
  fill_causes();
  flow();

  // Above the trees: each run's audit and warnings, failed audits first and in red.
  std::vector<int> order(n);
  for (int c = 0; c < n; ++c) order[c] = c;
  std::stable_partition(order.begin(), order.end(), [&](int c) { return !runs[c]->audit_ok; });
  QString audit;
  for (int c : order) {
    const Results& r = *runs[c];
    audit +=
        QStringLiteral("<p><b>%1</b>: audit <span style='color:%2'><b>%3</b></span> (%4)")
            .arg(file_name(r), r.audit_ok ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
                 r.audit_ok ? QStringLiteral("ok") : QStringLiteral("FAILED"),
                 QString::fromStdString(r.audit_balance).toHtmlEscaped());
    for (const std::string& e : r.audit_errors) {
      audit += QStringLiteral("<br>&nbsp;&nbsp;%1").arg(QString::fromStdString(e).toHtmlEscaped());
    }
    for (const std::string& w : r.warnings) {
      audit += QStringLiteral("<br>warning: %1").arg(QString::fromStdString(w).toHtmlEscaped());
    }
    audit += QStringLiteral("</p>");
  }
  audit_->setText(runs.empty() ? QStringLiteral("Open a drainsim results file.") : audit);
  audit_->setStyleSheet(any_failed ? QStringLiteral("QLabel { background: %1; border: 2px solid "
                                                    "#c62828; }")
                                         .arg(failed_color().name())
                                   : QString());
}

void SummaryView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  flow();
}

void SummaryView::flow() {
  if (groups_.empty()) return;
  // The by-cause table whole, unless it would take more than a third of the height.
  if (causes_->isVisibleTo(this)) {
    const int most = std::max(4 * causes_->header()->sizeHint().height(), height() / 3);
    causes_->setFixedHeight(std::min(causes_height_, most));
  }
  layout()->activate();
  const int spacing = std::max(0, columns_->spacing());
  const int width = std::max(1, columns_->geometry().width());
  const int room =
      columns_->geometry().height() - header_height_ - 2 * trees_.front()->frameWidth() - 2;
  const int most =
      std::clamp((width + spacing) / (tree_width_ + spacing), 1, static_cast<int>(groups_.size()));
  std::vector<int> split;
  for (int k = 1; k <= most; ++k) {
    auto [tallest, cut] = best_split(group_heights_, k);
    split = std::move(cut);
    if (tallest <= room) break;
  }
  if (split == split_) return;
  split_ = split;
  for (QTreeWidget* t : trees_) {
    while (t->topLevelItemCount() > 0) t->takeTopLevelItem(0);
  }
  while (trees_.size() < split.size()) trees_.push_back(new_tree());
  while (trees_.size() > split.size()) {
    delete trees_.back();
    trees_.pop_back();
  }
  const int n = static_cast<int>(headers_.size()) - 1;
  std::size_t next = 0;
  for (std::size_t t = 0; t < split.size(); ++t) {
    QTreeWidget* tree = trees_[t];
    tree->setColumnCount(1 + n);
    tree->setHeaderLabels(headers_);
    for (int i = 0; i < split[t]; ++i) {
      QTreeWidgetItem* g = groups_[next++];
      tree->addTopLevelItem(g);
      g->setFirstColumnSpanned(true);
    }
    tree->expandAll();
    // The metric names as wide as they need; the runs share the rest of the width.
    QHeaderView* header = tree->header();
    header->setSectionResizeMode(0, QHeaderView::Interactive);
    tree->resizeColumnToContents(0);
    tree->setColumnWidth(0, tree->columnWidth(0) + 24);
    for (int c = 1; c <= n; ++c) header->setSectionResizeMode(c, QHeaderView::Stretch);
  }
}

void SummaryView::fill_causes() {
  causes_->clear();
  const bool any = std::any_of(runs_.begin(), runs_.end(),
                               [](const auto& r) { return r->by_cause.has_value(); });
  causes_->setVisible(any);
  if (!any) return;
  const QStringList figures = cause_figures();
  causes_->setColumnCount(1 + static_cast<int>(figures.size()));
  causes_->setHeaderLabels(QStringList{QStringLiteral("By cause")} + figures);
  QFont bold = causes_->font();
  bold.setBold(true);
  const QColor quiet(0x80, 0x80, 0x80);
  for (const auto& r : runs_) {
    auto* run = new QTreeWidgetItem(causes_);
    run->setText(0, QStringLiteral("%1: %2 seed %3")
                        .arg(file_name(*r), QString::fromStdString(r->scenario_name))
                        .arg(r->seed));
    run->setFont(0, bold);
    run->setFirstColumnSpanned(true);
    for (int c = 0; c <= figures.size(); ++c) run->setBackground(c, group_brush());
    if (!r->by_cause) {
      auto* none = new QTreeWidgetItem(run);
      none->setText(0, QStringLiteral("not attributed: results of schema %1 (by cause since 3.3)")
                           .arg(QString::fromStdString(r->schema_version)));
      none->setForeground(0, quiet);
      none->setFirstColumnSpanned(true);
      continue;
    }
    // Every row, unless there are many: then the rows with nothing to show make one line
    // (a row with a figure is never left out).
    constexpr std::size_t kManyRows = 12;
    const std::vector<CauseFigures>& rows = *r->by_cause;
    auto nothing = [](const CauseFigures& c) {
      return c.job_loss == 0 && c.lost == 0 && c.discarded_by_shutdown == 0 && c.interrupted == 0 &&
             c.duplicate_executions == 0 && c.shutdown_retries == 0;
    };
    const bool squeeze = rows.size() > kManyRows;
    int left_out = 0;
    for (const CauseFigures& c : rows) {
      if (squeeze && nothing(c)) {
        ++left_out;
        continue;
      }
      auto* item = new QTreeWidgetItem(run);
      item->setText(0, QString::fromStdString(c.label));
      item->setData(0, kKeyRole, QString::fromStdString(c.cause));
      item->setToolTip(
          0, QStringLiteral("%1, class %2")
                 .arg(QString::fromStdString(c.cause), QString::fromStdString(c.cause_class)));
      const std::int64_t values[] = {
          c.job_loss,        c.lost, c.discarded_by_shutdown, c.interrupted, c.duplicate_executions,
          c.shutdown_retries};
      for (int i = 0; i < static_cast<int>(std::size(values)); ++i) {
        item->setText(1 + i, QString::number(values[i]));
        item->setTextAlignment(1 + i, Qt::AlignCenter);
        if (values[i] != 0) item->setFont(1 + i, bold);
      }
      if (nothing(c)) {
        for (int col = 0; col <= figures.size(); ++col) item->setForeground(col, quiet);
      }
    }
    if (left_out > 0) {
      auto* rest = new QTreeWidgetItem(run);
      rest->setText(0, QStringLiteral("%1 more with nothing to attribute").arg(left_out));
      rest->setForeground(0, quiet);
      rest->setFirstColumnSpanned(true);
    }
  }
  causes_->expandAll();
  causes_->header()->setStretchLastSection(false);
  causes_->header()->setDefaultAlignment(Qt::AlignCenter);
  causes_->resizeColumnToContents(0);
  causes_->setColumnWidth(0, std::max(260, causes_->columnWidth(0) + 24));
  causes_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  for (int c = 1; c <= figures.size(); ++c) {
    causes_->header()->setSectionResizeMode(c, QHeaderView::Stretch);
  }
  causes_height_ = causes_->header()->sizeHint().height() + 2 * causes_->frameWidth() + 2;
  for (int i = 0; i < causes_->topLevelItemCount(); ++i) {
    const QTreeWidgetItem* run = causes_->topLevelItem(i);
    causes_height_ += causes_->visualItemRect(run).height();
    for (int j = 0; j < run->childCount(); ++j) {
      causes_height_ += causes_->visualItemRect(run->child(j)).height();
    }
  }
  causes_->setFixedHeight(causes_height_);
}

}  // namespace drainsim::viewer
