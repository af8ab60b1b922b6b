// The summary view, offscreen, on the reference run (testdata/one-pod-rollout.results.json).
// Its summary, read from the file: job_loss 0, interrupted_fraction 1/3 (1 of 3 jobs),
// duplicate_executions 0, drain_latency_s.p99 25.0, orphan_recovery_delay_s.p99 1.0,
// deploy_duration_s.max 35.0, wasted_work_s 65.0; the audit is ok. Edited copies of it,
// written to a temporary directory, give a second run that differs in one metric, a run
// with keys this viewer does not know and a run whose audit failed.
#include <functional>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "widgets/render.h"
#include "widgets/summary_metrics.h"
#include "widgets/summary_view.h"
#include "widgets/test_support.h"

using namespace drainsim::viewer;
using drainsim::viewer::testing::load;

namespace {

const QString kReference = QStringLiteral(VIEWER_TESTDATA "/one-pod-rollout.results.json");

QJsonObject read_json(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return QJsonDocument::fromJson(f.readAll()).object();
}

// The reference file with its summary changed by `edit`, written as `name` in `dir`.
QString edited_copy(const QTemporaryDir& dir, const QString& name,
                    const std::function<void(QJsonObject&)>& edit) {
  QJsonObject doc = read_json(kReference);
  QJsonObject summary = doc[QStringLiteral("summary")].toObject();
  edit(summary);
  doc[QStringLiteral("summary")] = summary;
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(QJsonDocument(doc).toJson());
  return path;
}

std::unique_ptr<QWidget> summary_of(const QStringList& files) {
  return make_view(ViewKind::kSummary, load(files), QSize(1200, 900));
}

const QTreeWidget& tree_of(const QWidget& w) { return *static_cast<const SummaryView&>(w).tree(); }

QString key_of(const QTreeWidgetItem* item) {
  return item->data(0, SummaryView::kKeyRole).toString();
}

// Every metric row (a row with a key), in the order shown.
std::vector<const QTreeWidgetItem*> metric_rows(const QTreeWidget& tree) {
  std::vector<const QTreeWidgetItem*> out;
  for (int g = 0; g < tree.topLevelItemCount(); ++g) {
    const QTreeWidgetItem* group = tree.topLevelItem(g);
    for (int i = 0; i < group->childCount(); ++i) {
      if (!key_of(group->child(i)).isEmpty()) out.push_back(group->child(i));
    }
  }
  return out;
}

const QTreeWidgetItem* group_titled(const QTreeWidget& tree, const QString& prefix) {
  for (int g = 0; g < tree.topLevelItemCount(); ++g) {
    if (tree.topLevelItem(g)->text(0).startsWith(prefix)) return tree.topLevelItem(g);
  }
  return nullptr;
}

// The summary's dotted keys as the file has them, the audit left out: worked out here from
// the JSON, not by the reader.
void dotted_keys(const QJsonObject& o, const QString& prefix, QStringList& out) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const QString key = prefix.isEmpty() ? it.key() : prefix + '.' + it.key();
    if (prefix.isEmpty() && it.key() == QStringLiteral("audit")) continue;
    if (it.value().isObject()) {
      dotted_keys(it.value().toObject(), key, out);
    } else {
      out << key;
    }
  }
}

}  // namespace

class SummaryTest : public QObject {
  Q_OBJECT

 private slots:
  void headlineFiguresComeFirstWithTheirUnits() {
    auto w = summary_of({kReference});
    const QTreeWidget& tree = tree_of(*w);
    QStringList groups;
    for (int g = 0; g < tree.topLevelItemCount(); ++g) groups << tree.topLevelItem(g)->text(0);
    // All keys known, the audit ok: no "other", the audit after the metrics.
    QCOMPARE(groups, QStringList({"Headline", "Jobs", "Shutdown", "Recovery", "Deploys", "Audit"}));
    const QTreeWidgetItem* headline = tree.topLevelItem(0);
    const std::vector<std::pair<QString, QString>> expected = {
        {"job_loss", "0 jobs"},
        {"interrupted_fraction", "33.3 %"},  // 1 interrupted job of 3
        {"duplicate_executions", "0 executions"},
        {"drain_latency_s.p99", "25 s"},         // deletion at 40 s, exit at 65 s
        {"orphan_recovery_delay_s.p99", "1 s"},  // interrupted at 65 s, fetchable at 66 s
        {"deploy_duration_s.max", "35 s"},       // 30 s to pod-0 gone at 65 s
    };
    QCOMPARE(headline->childCount(), static_cast<int>(expected.size()));
    for (int i = 0; i < headline->childCount(); ++i) {
      QCOMPARE(key_of(headline->child(i)), expected[i].first);
      QCOMPARE(headline->child(i)->text(1), expected[i].second);
    }
    QCOMPARE(headline->child(0)->text(0), QStringLiteral("Job loss"));
    QCOMPARE(headline->child(1)->text(0), QStringLiteral("Interrupted"));
    // The headline stands out: bigger and bold, unlike the groups' rows.
    const QTreeWidgetItem* enqueued = tree.topLevelItem(1)->child(0);
    QCOMPARE(key_of(enqueued), QStringLiteral("jobs_enqueued"));
    QCOMPARE(enqueued->text(1), QStringLiteral("3 jobs"));
    QVERIFY(headline->child(0)->font(1).pointSizeF() > enqueued->font(1).pointSizeF());
    QVERIFY(headline->child(0)->font(1).bold());
  }

  void everySummaryKeyAppearsExactlyOnce() {
    QStringList keys;
    dotted_keys(read_json(kReference)[QStringLiteral("summary")].toObject(), {}, keys);
    QCOMPARE(keys.size(), 47);  // the leaves of the summary, the audit left out
    auto w = summary_of({kReference});
    QStringList shown;
    for (const QTreeWidgetItem* row : metric_rows(tree_of(*w))) shown << key_of(row);
    for (const QString& k : keys) QVERIFY2(shown.count(k) == 1, qPrintable(k));
    QCOMPARE(shown.size(), keys.size());  // and no row the file does not have
    // Seconds in a readable form: wasted_work_s 65.0 is 1m5s.
    for (const QTreeWidgetItem* row : metric_rows(tree_of(*w))) {
      if (key_of(row) == QStringLiteral("wasted_work_s")) {
        QCOMPARE(row->text(1), QStringLiteral("1m5s"));
      }
    }
  }

  void unknownKeysLandInOther() {
    QTemporaryDir dir;
    const QString newer = edited_copy(dir, QStringLiteral("newer.json"), [](QJsonObject& s) {
      s[QStringLiteral("zombie_time_s")] = 12.5;
      s[QStringLiteral("queue_depth")] = QJsonObject{{QStringLiteral("max"), 7}};
    });
    auto w = summary_of({newer});
    const QTreeWidget& tree = tree_of(*w);
    const QTreeWidgetItem* other = tree.topLevelItem(tree.topLevelItemCount() - 1);
    QVERIFY(other->text(0).startsWith(QStringLiteral("Other")));
    QCOMPARE(other->childCount(), 2);
    QStringList keys{key_of(other->child(0)), key_of(other->child(1))};
    keys.sort();
    QCOMPARE(keys, QStringList({"queue_depth.max", "zombie_time_s"}));
    for (int i = 0; i < 2; ++i) {
      const QTreeWidgetItem* row = other->child(i);
      QCOMPARE(row->text(0), key_of(row));  // named by its key
      QCOMPARE(row->text(1), key_of(row) == QStringLiteral("zombie_time_s")
                                 ? QStringLiteral("12.5 s")
                                 : QStringLiteral("7"));
    }
    // The known groups hold the same keys as before.
    QCOMPARE(static_cast<int>(metric_rows(tree).size()), 47 + 2);
  }

  void aNullDistributionReadsAsADash() {
    // A run with no drain has "drain_latency_s": null; its rows, the headline's included,
    // stay and read "–".
    QTemporaryDir dir;
    const QString none = edited_copy(dir, QStringLiteral("none.json"), [](QJsonObject& s) {
      s[QStringLiteral("drain_latency_s")] = QJsonValue::Null;
    });
    auto w = summary_of({kReference, none});
    const QTreeWidgetItem* p99 = tree_of(*w).topLevelItem(0)->child(3);
    QCOMPARE(key_of(p99), QStringLiteral("drain_latency_s.p99"));
    QCOMPARE(p99->text(1), QStringLiteral("25 s"));
    QCOMPARE(p99->text(2), QStringLiteral("–"));
    QCOMPARE(p99->data(2, SummaryView::kDifferenceRole).toString(), QStringLiteral("≠"));
    QCOMPARE(static_cast<int>(metric_rows(tree_of(*w)).size()), 47);
  }

  void differingCellIsMarkedWithTheDifference_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("difference");
    QTest::newRow("count") << "duplicate_executions" << 3.0 << "3 executions  (+3)"
                           << "+3";
    // 200 s - 65 s = 135 s.
    QTest::newRow("seconds") << "wasted_work_s" << 200.0 << "3m20s  (+2m15s)"
                             << "+2m15s";
    // 1/2 - 1/3 = 16.7 percentage points.
    QTest::newRow("percent") << "interrupted_fraction" << 0.5 << "50 %  (+16.7 pp)"
                             << "+16.7 pp";
    QTest::newRow("less") << "jobs_completed" << 1.0 << "1 job  (−2)"
                          << "−2";
  }
  void differingCellIsMarkedWithTheDifference() {
    QFETCH(QString, key);
    QFETCH(double, value);
    QFETCH(QString, text);
    QFETCH(QString, difference);
    QTemporaryDir dir;
    const QString second = edited_copy(dir, QStringLiteral("second.json"), [&](QJsonObject& s) {
      QVERIFY(s.contains(key));
      s[key] = value;
    });
    auto w = summary_of({kReference, second});
    const QTreeWidget& tree = tree_of(*w);
    QCOMPARE(tree.columnCount(), 3);
    int marked = 0;
    for (int g = 0; g < tree.topLevelItemCount(); ++g) {
      const QTreeWidgetItem* group = tree.topLevelItem(g);
      for (int i = 0; i < group->childCount(); ++i) {
        const QTreeWidgetItem* row = group->child(i);
        for (int c = 1; c <= 2; ++c) {
          const QString diff = row->data(c, SummaryView::kDifferenceRole).toString();
          const bool highlighted = row->background(c).color() == SummaryView::difference_color();
          QCOMPARE(highlighted, !diff.isEmpty());
          if (diff.isEmpty()) continue;
          ++marked;
          QCOMPARE(c, 2);
          QCOMPARE(key_of(row), key);
          QCOMPARE(diff, difference);
          QCOMPARE(row->text(c), text);
        }
      }
    }
    QCOMPARE(marked, 1);
  }

  void failedAuditShowsFirst() {
    QTemporaryDir dir;
    const QString failed = edited_copy(dir, QStringLiteral("failed.json"), [](QJsonObject& s) {
      s[QStringLiteral("audit")] = QJsonObject{
          {QStringLiteral("ok"), false},
          {QStringLiteral("error_count"), 1},
          {QStringLiteral("errors"), QJsonArray{QStringLiteral("job 1 vanished")}},
          {QStringLiteral("balance"),
           QStringLiteral("enqueued 3 != completed 2 + lost 0 + discarded 0 + pending 0")}};
    });
    auto w = summary_of({kReference, failed});
    const auto& view = static_cast<const SummaryView&>(*w);
    const QTreeWidget& tree = *view.tree();
    const QTreeWidgetItem* audit = tree.topLevelItem(0);
    QCOMPARE(audit->text(0), QStringLiteral("Audit"));
    QCOMPARE(audit->child(0)->text(1), QStringLiteral("ok"));
    QCOMPARE(audit->child(0)->text(2), QStringLiteral("FAILED"));
    QCOMPARE(audit->child(0)->background(2).color(), SummaryView::failed_color());
    QCOMPARE(audit->child(1)->text(2), QStringLiteral("1 error  (+1)"));
    QCOMPARE(tree.topLevelItem(1)->text(0), QStringLiteral("Headline"));
    QVERIFY(!group_titled(tree, QStringLiteral("Other")));
    // Above the tree the failed run comes first, with its balance and error.
    const QString label = view.audit_label()->text();
    QVERIFY2(label.startsWith(QStringLiteral("<p><b>failed.json</b>: audit")), qPrintable(label));
    QVERIFY(label.indexOf(QStringLiteral("FAILED")) < label.indexOf(QStringLiteral(">ok<")));
    QVERIFY(label.contains(QStringLiteral("job 1 vanished")));
    QVERIFY(label.contains(QStringLiteral("enqueued 3 != completed 2")));
  }

  void secondsReadAsAPersonWouldSay_data() {
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << "0 s";
    QTest::newRow("ms") << 0.45 << "450 ms";
    QTest::newRow("just under 1 s") << 0.9996 << "1 s";
    QTest::newRow("1.47") << 1.466215 << "1.47 s";
    QTest::newRow("32.1") << 32.14 << "32.1 s";
    QTest::newRow("3m20s") << 200.0 << "3m20s";
    QTest::newRow("rounded") << 93.547662 << "1m34s";
    QTest::newRow("hour") << 3605.0 << "1h5s";
    QTest::newRow("negative") << -65.0 << "−1m5s";
  }
  void secondsReadAsAPersonWouldSay() {
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(readable_seconds(seconds)), text);
  }
};

QTEST_MAIN(SummaryTest)
#include "summary_test.moc"
