// The summary panel: a tree with one row per summary metric and one column per loaded run.
// Rows are grouped (summary_metrics.h): the headline figures first, in a larger font, then
// jobs, shutdown, recovery, deploys, the audit and "other" (keys this viewer does not
// know, so none is lost); each value with its unit. A cell of a later run that differs from
// the first run's is highlighted and shows the difference ("+3", "+2.5 s"). Above the tree,
// each run's audit verdict with its balance and errors, and its warnings. When an audit
// failed, its run comes first there, in red, and the audit group is the tree's first group.
// Only draws: the data comes from results_reader.h. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QColor>
#include <QWidget>

#include "reader/results_reader.h"

QT_BEGIN_NAMESPACE
class QTreeWidget;
class QLabel;
QT_END_NAMESPACE

namespace drainsim::viewer {

class SummaryView : public QWidget {
  Q_OBJECT

 public:
  // Item data: on column 0 of a metric row its dotted summary key (empty on group rows
  // and the audit's rows); on a run's column, the difference from the first run's value
  // ("" when equal, "≠" for a differing value that is not a number).
  static constexpr int kKeyRole = Qt::UserRole;
  static constexpr int kDifferenceRole = Qt::UserRole + 1;
  static QColor difference_color() { return QColor(0xff, 0xe8, 0xa3); }
  static QColor failed_color() { return QColor(0xff, 0xcd, 0xd2); }

  explicit SummaryView(QWidget* parent = nullptr);
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  const QTreeWidget* tree() const { return tree_; }
  const QLabel* audit_label() const { return audit_; }

 private:
  QLabel* audit_;
  QTreeWidget* tree_;
};

}  // namespace drainsim::viewer
