#include "widgets/summary_view.h"

#include <map>

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace drainsim::viewer {

SummaryView::SummaryView(QWidget* parent)
    : QWidget(parent), audit_(new QLabel(this)), table_(new QTableWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  audit_->setTextFormat(Qt::RichText);
  audit_->setWordWrap(true);
  layout->addWidget(audit_);
  layout->addWidget(table_, 1);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->setAlternatingRowColors(true);
}

void SummaryView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
  // Rows: the union of the runs' metric keys, in first-seen order.
  std::vector<std::string> keys;
  std::map<std::string, int> row_of;
  for (const auto& r : runs) {
    for (const SummaryRow& s : r->summary) {
      if (row_of.emplace(s.key, static_cast<int>(keys.size())).second) keys.push_back(s.key);
    }
  }
  table_->clear();
  table_->setRowCount(static_cast<int>(keys.size()));
  table_->setColumnCount(static_cast<int>(runs.size()));
  QStringList headers, rows;
  for (const std::string& k : keys) rows << QString::fromStdString(k);
  table_->setVerticalHeaderLabels(rows);
  QString audit;
  for (int c = 0; c < static_cast<int>(runs.size()); ++c) {
    const Results& r = *runs[c];
    headers << QStringLiteral("%1\n%2 seed %3")
                   .arg(QFileInfo(QString::fromStdString(r.path)).fileName(),
                        QString::fromStdString(r.scenario_name))
                   .arg(r.seed);
    for (const SummaryRow& s : r.summary) {
      auto* item = new QTableWidgetItem(QString::fromStdString(s.value));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(row_of[s.key], c, item);
    }
    audit += QStringLiteral("<p><b>%1</b>: audit <span style='color:%2'><b>%3</b></span> (%4)")
                 .arg(QFileInfo(QString::fromStdString(r.path)).fileName(),
                      r.audit_ok ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
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
  table_->setHorizontalHeaderLabels(headers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  audit_->setText(runs.empty() ? QStringLiteral("Open a drainsim results file.") : audit);
}

}  // namespace drainsim::viewer
