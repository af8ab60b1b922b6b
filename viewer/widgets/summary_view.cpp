#include "widgets/summary_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>

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

}  // namespace

SummaryView::SummaryView(QWidget* parent)
    : QWidget(parent), audit_(new QLabel(this)), tree_(new QTreeWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  audit_->setTextFormat(Qt::RichText);
  audit_->setWordWrap(true);
  audit_->setMargin(4);
  audit_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(audit_);
  auto* row = new QHBoxLayout();
  row->addWidget(tree_, 1);
  row->addStretch(0);  // takes what the tree, at its maximum width, leaves
  layout->addLayout(row, 1);
  tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tree_->setAlternatingRowColors(true);
  tree_->setUniformRowHeights(false);
}

void SummaryView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
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

  tree_->clear();
  tree_->setColumnCount(1 + n);
  QStringList headers{QStringLiteral("Metric")};
  for (const auto& r : runs) {
    headers << QStringLiteral("%1\n%2 seed %3")
                   .arg(file_name(*r), QString::fromStdString(r->scenario_name))
                   .arg(r->seed);
  }
  tree_->setHeaderLabels(headers);

  QFont group_font = tree_->font();
  group_font.setBold(true);
  QFont headline_font = group_font;
  headline_font.setPointSizeF(tree_->font().pointSizeF() * 1.35);
  const QBrush group_brush(QColor(0xe8, 0xea, 0xed));

  auto add_group = [&](const std::string& group) {
    auto* g = new QTreeWidgetItem(tree_);
    g->setText(0, QString::fromStdString(group_title(group)));
    g->setFont(0, group_font);
    g->setFirstColumnSpanned(true);
    for (int c = 0; c <= n; ++c) g->setBackground(c, group_brush);
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
  tree_->expandAll();
  // The tree as wide as its columns' contents, so values sit next to their names however
  // wide the window; in a narrower window the runs' columns share what is left. The balance,
  // elided when long, is in full in its tooltip and above the tree.
  QHeaderView* header = tree_->header();
  header->setStretchLastSection(false);
  header->setDefaultAlignment(Qt::AlignCenter);
  int width = 2 * tree_->frameWidth() + tree_->verticalScrollBar()->sizeHint().width();
  for (int c = 0; c <= n; ++c) {
    header->setSectionResizeMode(c, QHeaderView::Interactive);
    tree_->resizeColumnToContents(c);
    // A run's column no narrower than 160 px nor, for a long balance, wider than 340 px.
    const int w = tree_->columnWidth(c) + 24;
    tree_->setColumnWidth(c, c == 0 ? w : std::clamp(w, 160, 340));
    width += tree_->columnWidth(c);
    if (c > 0) header->setSectionResizeMode(c, QHeaderView::Stretch);
  }
  tree_->setMaximumWidth(width);

  // Above the tree: each run's audit and warnings, failed audits first and in red.
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

}  // namespace drainsim::viewer
