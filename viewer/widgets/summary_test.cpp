// The summary view, offscreen, on the reference run (testdata/one-pod-rollout.results.json).
// Its summary, read from the file: job_loss 0, interrupted_fraction 1/3 (1 of 3 jobs),
// duplicate_executions 0, drain_latency_s.p99 25.0, orphan_recovery_delay_s.p99 1.0,
// deploy_duration_s.max 35.0, wasted_work_s 65.0; the audit is ok; by cause, the deploy at
// 30 s interrupted (and retried) the one job, nothing else. Edited copies of it, written to
// a temporary directory, give a second run that differs in one metric, a run with keys this
// viewer does not know, a run whose audit failed, runs with other causes and a run written
// before causes were (schema 3.2).
#include <functional>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
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

// The summary's rows, the audit and by_cause left out: 47, and since 3.3 the job loss and
// the interrupted jobs of each of the 7 classes of cause, and requeue_delay_s's and
// backend_recovery_delay_s's 4 each. In the reference run backend_recovery_delay_s is null
// (its FAIL at the deadline is a hand-back): one key in the file, its 4 rows reading "–".
constexpr int kLeaves = 47 + 2 * 7 + 2 * 4;
constexpr int kNullGroupRows = 4;

// The reference file with its summary changed by `edit` (and the rest by `edit_doc`),
// written as `name` in `dir`.
QString edited_copy(const QTemporaryDir& dir, const QString& name,
                    const std::function<void(QJsonObject&)>& edit,
                    const std::function<void(QJsonObject&)>& edit_doc = {}) {
  QJsonObject doc = read_json(kReference);
  QJsonObject summary = doc[QStringLiteral("summary")].toObject();
  edit(summary);
  doc[QStringLiteral("summary")] = summary;
  if (edit_doc) edit_doc(doc);
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(QJsonDocument(doc).toJson());
  return path;
}

std::unique_ptr<QWidget> summary_of(const QStringList& files) {
  return make_view(ViewKind::kSummary, load(files), QSize(1200, 900));
}

const SummaryView& view_of(const QWidget& w) { return static_cast<const SummaryView&>(w); }

// The groups of every tree, left to right: the order a reader goes through them.
std::vector<const QTreeWidgetItem*> groups_of(const QWidget& w) {
  std::vector<const QTreeWidgetItem*> out;
  for (const QTreeWidget* tree : view_of(w).trees()) {
    for (int g = 0; g < tree->topLevelItemCount(); ++g) out.push_back(tree->topLevelItem(g));
  }
  return out;
}

QString key_of(const QTreeWidgetItem* item) {
  return item->data(0, SummaryView::kKeyRole).toString();
}

// Every metric row (a row with a key), in the order shown.
std::vector<const QTreeWidgetItem*> metric_rows(const QWidget& w) {
  std::vector<const QTreeWidgetItem*> out;
  for (const QTreeWidgetItem* group : groups_of(w)) {
    for (int i = 0; i < group->childCount(); ++i) {
      if (!key_of(group->child(i)).isEmpty()) out.push_back(group->child(i));
    }
  }
  return out;
}

const QTreeWidgetItem* group_titled(const QWidget& w, const QString& prefix) {
  for (const QTreeWidgetItem* g : groups_of(w)) {
    if (g->text(0).startsWith(prefix)) return g;
  }
  return nullptr;
}

// The summary's dotted keys as the file has them, the audit and by_cause (a list, shown in
// its own table) left out: worked out here from the JSON, not by the reader.
void dotted_keys(const QJsonObject& o, const QString& prefix, QStringList& out) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const QString key = prefix.isEmpty() ? it.key() : prefix + '.' + it.key();
    if (prefix.isEmpty() && it.key() == QStringLiteral("audit")) continue;
    if (prefix.isEmpty() && it.key() == QStringLiteral("by_cause")) continue;
    if (it.value().isObject()) {
      dotted_keys(it.value().toObject(), key, out);
    } else {
      out << key;
    }
  }
}

// A row of summary.by_cause with its figures; job_loss is lost + discarded.
QJsonObject cause(const QString& id, const QString& cls, const QString& label, int interrupted,
                  int lost, int discarded, int duplicates, int retries) {
  return {{"cause", id},
          {"kind", QJsonValue::Null},
          {"at_s", QJsonValue::Null},
          {"deploy", QJsonValue::Null},
          {"class", cls},
          {"label", label},
          {"interrupted", interrupted},
          {"job_loss", lost + discarded},
          {"lost", lost},
          {"discarded_by_shutdown", discarded},
          {"duplicate_executions", duplicates},
          {"shutdown_retries", retries}};
}

// The cause rows under a run's row of the by-cause table: each its cause (kKeyRole) and its
// cells' text.
QList<QStringList> cause_rows(const QTreeWidgetItem* run) {
  QList<QStringList> out;
  for (int i = 0; i < run->childCount(); ++i) {
    const QTreeWidgetItem* row = run->child(i);
    QStringList cells{key_of(row)};
    for (int c = 0; c < row->columnCount(); ++c) cells << row->text(c);
    out << cells;
  }
  return out;
}

}  // namespace

class SummaryTest : public QObject {
  Q_OBJECT

 private slots:
  void headlineFiguresComeFirstWithTheirUnits() {
    auto w = summary_of({kReference});
    QStringList groups;
    for (const QTreeWidgetItem* g : groups_of(*w)) groups << g->text(0);
    // All keys known, the audit ok: no "other", the audit after the metrics.
    QCOMPARE(groups, QStringList({"Headline", "Jobs", "By cause", "Shutdown", "Recovery", "Deploys",
                                  "Audit"}));
    const QTreeWidgetItem* headline = groups_of(*w)[0];
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
    const QTreeWidgetItem* enqueued = groups_of(*w)[1]->child(0);
    QCOMPARE(key_of(enqueued), QStringLiteral("jobs_enqueued"));
    QCOMPARE(enqueued->text(1), QStringLiteral("3 jobs"));
    QVERIFY(headline->child(0)->font(1).pointSizeF() > enqueued->font(1).pointSizeF());
    QVERIFY(headline->child(0)->font(1).bold());
  }

  void everySummaryKeyAppearsExactlyOnce() {
    QStringList keys;
    dotted_keys(read_json(kReference)[QStringLiteral("summary")].toObject(), {}, keys);
    QCOMPARE(keys.size(), kLeaves - kNullGroupRows + 1);
    auto w = summary_of({kReference});
    QStringList shown;
    for (const QTreeWidgetItem* row : metric_rows(*w)) shown << key_of(row);
    for (const QString& k : keys) {
      if (k == QStringLiteral("backend_recovery_delay_s")) {  // null: its rows, each once
        QCOMPARE(shown.filter(QRegularExpression("^" + k + "\\.")).size(), kNullGroupRows);
        continue;
      }
      QVERIFY2(shown.count(k) == 1, qPrintable(k));
    }
    QCOMPARE(shown.size(), kLeaves);  // and no row the file does not have
    // Seconds in a readable form: wasted_work_s 65.0 is 1m5s.
    for (const QTreeWidgetItem* row : metric_rows(*w)) {
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
    const QTreeWidgetItem* other = groups_of(*w).back();
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
    QCOMPARE(static_cast<int>(metric_rows(*w).size()), kLeaves + 2);
  }

  void aNullDistributionReadsAsADash() {
    // A run with no drain has "drain_latency_s": null; its rows, the headline's included,
    // stay and read "–".
    QTemporaryDir dir;
    const QString none = edited_copy(dir, QStringLiteral("none.json"), [](QJsonObject& s) {
      s[QStringLiteral("drain_latency_s")] = QJsonValue::Null;
    });
    auto w = summary_of({kReference, none});
    const QTreeWidgetItem* p99 = groups_of(*w)[0]->child(3);
    QCOMPARE(key_of(p99), QStringLiteral("drain_latency_s.p99"));
    QCOMPARE(p99->text(1), QStringLiteral("25 s"));
    QCOMPARE(p99->text(2), QStringLiteral("–"));
    QCOMPARE(p99->data(2, SummaryView::kDifferenceRole).toString(), QStringLiteral("≠"));
    QCOMPARE(static_cast<int>(metric_rows(*w).size()), kLeaves);
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
    for (const QTreeWidget* tree : view_of(*w).trees()) QCOMPARE(tree->columnCount(), 3);
    int marked = 0;
    for (const QTreeWidgetItem* group : groups_of(*w)) {
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
    const SummaryView& view = view_of(*w);
    const QTreeWidgetItem* audit = groups_of(*w)[0];
    QCOMPARE(audit->text(0), QStringLiteral("Audit"));
    QCOMPARE(audit->child(0)->text(1), QStringLiteral("ok"));
    QCOMPARE(audit->child(0)->text(2), QStringLiteral("FAILED"));
    QCOMPARE(audit->child(0)->background(2).color(), SummaryView::failed_color());
    QCOMPARE(audit->child(1)->text(2), QStringLiteral("1 error  (+1)"));
    QCOMPARE(groups_of(*w)[1]->text(0), QStringLiteral("Headline"));
    QVERIFY(!group_titled(*w, QStringLiteral("Other")));
    // Above the tree the failed run comes first, with its balance and error.
    const QString label = view.audit_label()->text();
    QVERIFY2(label.startsWith(QStringLiteral("<p><b>failed.json</b>: audit")), qPrintable(label));
    QVERIFY(label.indexOf(QStringLiteral("FAILED")) < label.indexOf(QStringLiteral(">ok<")));
    QVERIFY(label.contains(QStringLiteral("job 1 vanished")));
    QVERIFY(label.contains(QStringLiteral("enqueued 3 != completed 2")));
  }

  void lossByCauseShowsEachEventsFigures() {
    // The reference run: the deploy at 30 s deletes pod-0, whose worker FAILs job 1 at 65 s
    // (interrupted, retried once on pod-1); nothing is lost, nothing troubled without an event.
    auto w = summary_of({kReference});
    const QTreeWidget& causes = *view_of(*w).causes();
    QVERIFY(!causes.isHidden());
    QStringList header;
    for (int c = 0; c < causes.columnCount(); ++c) header << causes.headerItem()->text(c);
    QCOMPARE(header, QStringList({"By cause", "Job loss", "Lost", "Discarded by shutdown",
                                  "Interrupted", "Duplicates", "Shutdown retries"}));
    QCOMPARE(causes.topLevelItemCount(), 1);
    QCOMPARE(causes.topLevelItem(0)->text(0),
             QStringLiteral("one-pod-rollout.results.json: one-pod-rollout seed 1"));
    QCOMPARE(cause_rows(causes.topLevelItem(0)),
             QList<QStringList>({{"events[0]", "deploy 1 at 30s", "0", "0", "0", "1", "0", "1"},
                                 {"none", "no event", "0", "0", "0", "0", "0", "0"}}));
    // The by-class totals are metric rows like the others.
    const QTreeWidgetItem* by_class = group_titled(*w, QStringLiteral("By cause"));
    QVERIFY(by_class);
    QCOMPARE(by_class->childCount(), 14);
    QCOMPARE(key_of(by_class->child(7)), QStringLiteral("interrupted_by_cause.deploys"));
    QCOMPARE(by_class->child(7)->text(0), QStringLiteral("Interrupted: deploys"));
    QCOMPARE(by_class->child(7)->text(1), QStringLiteral("1 job"));
  }

  void lossByCauseOfSeveralRuns() {
    // A second run whose OOM kill at 50 s lost 2 jobs and discarded 1 (job loss 3) and ran
    // one twice; a node drain that cost nothing; one job interrupted with no event.
    QTemporaryDir dir;
    const QString oom = edited_copy(dir, QStringLiteral("oom.json"), [](QJsonObject& s) {
      s[QStringLiteral("by_cause")] =
          QJsonArray{cause("events[0]", "deploys", "deploy 1 at 30s", 0, 0, 0, 0, 0),
                     cause("events[1]", "oom_kills", "oom_kill at 50s", 4, 2, 1, 1, 0),
                     cause("events[2]", "node_drains", "node_drain at 1m", 0, 0, 0, 0, 0),
                     cause("none", "none", "no event", 1, 0, 0, 0, 2)};
    });
    auto w = summary_of({kReference, oom});
    const QTreeWidget& causes = *view_of(*w).causes();
    QCOMPARE(causes.topLevelItemCount(), 2);
    QCOMPARE(causes.topLevelItem(1)->text(0), QStringLiteral("oom.json: one-pod-rollout seed 1"));
    QCOMPARE(cause_rows(causes.topLevelItem(1)),
             QList<QStringList>({{"events[0]", "deploy 1 at 30s", "0", "0", "0", "0", "0", "0"},
                                 {"events[1]", "oom_kill at 50s", "3", "2", "1", "4", "1", "0"},
                                 {"events[2]", "node_drain at 1m", "0", "0", "0", "0", "0", "0"},
                                 {"none", "no event", "0", "0", "0", "1", "0", "2"}}));
    // A row with nothing reads quieter than one with figures, whose figures stand out.
    const QTreeWidgetItem* drain = causes.topLevelItem(1)->child(2);
    const QTreeWidgetItem* kill = causes.topLevelItem(1)->child(1);
    QVERIFY(drain->foreground(0).color() != kill->foreground(0).color());
    QVERIFY(kill->font(1).bold());
    QVERIFY(!kill->font(6).bold());  // no shutdown retry
  }

  void manyEventsKeepEveryRowWithAFigure() {
    // 20 OOM kills, of which the 8th interrupted 2 jobs: the rows with nothing make one line.
    QTemporaryDir dir;
    const QString many = edited_copy(dir, QStringLiteral("many.json"), [](QJsonObject& s) {
      QJsonArray rows;
      for (int i = 0; i < 20; ++i) {
        rows << cause(QStringLiteral("events[%1]").arg(i), "oom_kills",
                      QStringLiteral("oom_kill at %1m").arg(i + 1), i == 7 ? 2 : 0, 0, 0, 0,
                      i == 7 ? 2 : 0);
      }
      rows << cause("none", "none", "no event", 0, 0, 0, 0, 0);
      s[QStringLiteral("by_cause")] = rows;
    });
    auto w = summary_of({many});
    const QTreeWidgetItem* run = view_of(*w).causes()->topLevelItem(0);
    QCOMPARE(run->childCount(), 2);
    QCOMPARE(cause_rows(run)[0],
             QStringList({"events[7]", "oom_kill at 8m", "0", "0", "0", "2", "0", "2"}));
    QCOMPARE(run->child(1)->text(0), QStringLiteral("20 more with nothing to attribute"));
  }

  void resultsBeforeCausesStillOpen() {
    // A 3.2 file: no by_cause, no by-class groups. It opens; the table is not shown, and
    // beside a 3.3 run it says the old run's causes are not attributed.
    QTemporaryDir dir;
    const QString old = edited_copy(
        dir, QStringLiteral("old.json"),
        [](QJsonObject& s) {
          s.remove(QStringLiteral("by_cause"));
          s.remove(QStringLiteral("job_loss_by_cause"));
          s.remove(QStringLiteral("interrupted_by_cause"));
          s.remove(QStringLiteral("requeue_delay_s"));
          s.remove(QStringLiteral("backend_recovery_delay_s"));
        },
        [](QJsonObject& doc) { doc[QStringLiteral("schema_version")] = QStringLiteral("3.2"); });
    auto alone = summary_of({old});
    QVERIFY(view_of(*alone).causes()->isHidden());
    QVERIFY(!group_titled(*alone, QStringLiteral("By cause")));
    QCOMPARE(static_cast<int>(metric_rows(*alone).size()), 47);
    auto both = summary_of({kReference, old});
    const QTreeWidget& causes = *view_of(*both).causes();
    QVERIFY(!causes.isHidden());
    QCOMPARE(causes.topLevelItem(1)->childCount(), 1);
    QCOMPARE(causes.topLevelItem(1)->child(0)->text(0),
             QStringLiteral("not attributed: results of schema 3.2 (by cause since 3.3)"));
  }

  void aPictureShowsEveryRowAcrossTheWidth() {
    // Two runs at 1600x900: the groups flow into trees side by side that fill the width, and
    // no tree or table has rows hidden under a scroll bar.
    QTemporaryDir dir;
    const QString second = edited_copy(dir, QStringLiteral("second.json"), [](QJsonObject& s) {
      s[QStringLiteral("duplicate_executions")] = 3;
    });
    const QSize size(1600, 900);
    auto w = make_view(ViewKind::kSummary, load({kReference, second}), size);
    const SummaryView& view = view_of(*w);
    QVERIFY(view.trees().size() >= 2);
    int width = 0;
    for (const QTreeWidget* tree : view.trees()) {
      QCOMPARE(tree->verticalScrollBar()->maximum(), 0);
      QVERIFY(!tree->verticalScrollBar()->isVisible());
      width += tree->width();
    }
    QVERIFY2(width > size.width() * 9 / 10, qPrintable(QString::number(width)));
    QCOMPARE(view.causes()->verticalScrollBar()->maximum(), 0);
    QCOMPARE(static_cast<int>(metric_rows(*w).size()), kLeaves);
    // A narrow window has one tree, which scrolls.
    auto narrow = make_view(ViewKind::kSummary, load({kReference, second}), QSize(600, 900));
    QCOMPARE(view_of(*narrow).trees().size(), std::size_t{1});
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
