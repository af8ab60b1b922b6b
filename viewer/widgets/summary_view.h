// The summary panel: every summary metric of each loaded run side by side (one column per
// run), then each run's audit verdict, its balance and errors, and its warnings. Only
// draws: the data comes from results_reader.h. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "reader/results_reader.h"

QT_BEGIN_NAMESPACE
class QTableWidget;
class QLabel;
QT_END_NAMESPACE

namespace drainsim::viewer {

class SummaryView : public QWidget {
  Q_OBJECT

 public:
  explicit SummaryView(QWidget* parent = nullptr);
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  const QTableWidget* table() const { return table_; }

 private:
  QLabel* audit_;
  QTableWidget* table_;
};

}  // namespace drainsim::viewer
