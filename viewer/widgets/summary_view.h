// The summary panel: one row per summary metric and one column per loaded run, in trees
// set side by side. Rows are grouped (summary_metrics.h): the headline figures first, in a
// larger font, then jobs, by cause, shutdown, recovery, deploys, the audit and "other" (keys
// this viewer does not know, so none is lost); each value with its unit. The groups flow
// into as many trees, left to right, as the width allows and the height needs, so that the
// panel uses the whole width and a picture of it shows every row rather than a scroll bar.
// A cell of a later run that differs from the first run's is highlighted and shows the
// difference ("+3", "+2.5 s"). Above the trees, each run's audit verdict with its balance
// and errors, and its warnings; when an audit failed, its run comes first there, in red, and
// the audit group is the first group. Under them, the loss by cause (summary.by_cause,
// schema 3.3 on): per run, a row per scripted event that acts on pods and one for no event,
// with the jobs each lost, interrupted, ran twice and retried; absent when no run has it.
// Only draws: the data comes from results_reader.h. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QColor>
#include <QStringList>
#include <QWidget>

#include "reader/results_reader.h"

QT_BEGIN_NAMESPACE
class QHBoxLayout;
class QTreeWidget;
class QTreeWidgetItem;
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

  // The by-cause table's columns after the cause's label, in order.
  static QStringList cause_figures();

  explicit SummaryView(QWidget* parent = nullptr);
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  // The metric trees, left to right; the groups are their top-level items, in order.
  std::vector<const QTreeWidget*> trees() const;
  // The by-cause table: a top-level row per run (its file), under it a row per cause with
  // its label and cause_figures(); on column 0 of a cause row, kKeyRole holds its "cause"
  // ("events[0]", "none"). Hidden when no run has by_cause.
  const QTreeWidget* causes() const { return causes_; }
  const QLabel* audit_label() const { return audit_; }

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  void fill_causes();
  QTreeWidget* new_tree();
  // Sets the groups out in as many trees as fit (see the top), unless they are so already.
  void flow();

  std::vector<std::shared_ptr<const Results>> runs_;
  QLabel* audit_;
  QTreeWidget* causes_;
  QHBoxLayout* columns_;
  std::vector<QTreeWidget*> trees_;
  QStringList headers_;
  // The groups and what they need, measured in one tree: each group's height, the trees'
  // width and the header's height; groups_ are owned by the trees they are in.
  std::vector<QTreeWidgetItem*> groups_;
  std::vector<int> group_heights_;
  int tree_width_ = 0, header_height_ = 0, causes_height_ = 0;
  std::vector<int> split_;  // how many groups each tree holds now
};

}  // namespace drainsim::viewer
