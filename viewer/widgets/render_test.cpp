// The viewer's widgets and --render, offscreen, on the reference run
// (testdata/one-pod-rollout.json; results_reader_test.cpp works it out): pod-0's slot 0
// runs job 0 (0..5 s) and job 2 (5..25 s), both completed; its slot 1 runs job 1 from 0 s
// until it is interrupted at 65 s; pod-1's slot 0 runs job 1 again, 66..166 s, completed.
#include <QApplication>
#include <QComboBox>
#include <QDropEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QStatusBar>
#include <QTabBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QWheelEvent>
#include <QtTest>

#include "widgets/compare_view.h"
#include "widgets/main_window.h"
#include "widgets/palette.h"
#include "widgets/render.h"
#include "widgets/series_view.h"
#include "widgets/sweep_view.h"
#include "widgets/test_support.h"
#include "widgets/timeline_view.h"

using namespace drainsim::viewer;
using drainsim::viewer::testing::load;

namespace {

const QString kDir = QStringLiteral(VIEWER_TESTDATA);
const QString kReference = kDir + QStringLiteral("/one-pod-rollout.results.json");

QByteArray slurp(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

// Sum of the channel differences.
int distance(QColor a, QColor b) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
         std::abs(a.blue() - b.blue());
}

// The controls of `w` a user would see: choosers, and text telling how to use the window.
QStringList visible_controls(const QWidget& w) {
  QStringList out;
  for (const QComboBox* c : w.findChildren<QComboBox*>()) {
    if (c->isVisibleTo(&w)) out << QStringLiteral("chooser ") + c->currentText();
  }
  for (const QLabel* l : w.findChildren<QLabel*>()) {
    if (l->isVisibleTo(&w) && (l->text().contains(QStringLiteral("Click")) ||
                               l->text().contains(QStringLiteral("averaged over")))) {
      out << l->text();
    }
  }
  return out;
}

}  // namespace

class RenderTest : public QObject {
  Q_OBJECT

 private slots:
  void renderHasTheRequestedSize_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QSize>("size");
    const QString sweep = kDir + QStringLiteral("/one-pod-rollout.sweep.json");
    const QString compare = kDir + QStringLiteral("/one-pod-rollout.compare.json");
    QTest::newRow("timeline 1600x900") << "timeline" << kReference << QSize(1600, 900);
    QTest::newRow("timeline 640x480") << "timeline" << kReference << QSize(640, 480);
    QTest::newRow("series") << "series" << kReference << QSize(1200, 700);
    QTest::newRow("summary") << "summary" << kReference << QSize(900, 1000);
    QTest::newRow("sweep") << "sweep" << sweep << QSize(1000, 600);
    QTest::newRow("compare") << "compare" << compare << QSize(1000, 600);
  }
  void renderHasTheRequestedSize() {
    QFETCH(QString, view);
    QFETCH(QString, file);
    QFETCH(QSize, size);
    const Loaded loaded = load({file});
    const ViewKind kind = *view_kind(view);
    QCOMPARE(QString::fromStdString(render_problem(kind, loaded)), QString());
    auto widget = make_view(kind, loaded, size);
    const QImage image = render(*widget);
    QCOMPARE(image.size(), size);
  }

  void outcomeColoursWhereTheReferenceRunPutsThem() {
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QImage image = render(*widget);
    const TimelineLayout& L = view.layout();
    QCOMPARE(L.t0(), 0.0);
    QCOMPARE(L.t1(), 166.0);
    auto pixel = [&](int lane, int slot, double t) {
      const std::optional<int> y = L.track_center(0, lane, slot);
      if (!y) qFatal("no track for pod-%d slot %d", lane, slot);
      return QColor(image.pixel(static_cast<int>(std::lround(L.x_of(t))), *y));
    };
    const QColor completed = outcome_color(Outcome::kCompleted);
    const QColor interrupted = outcome_color(Outcome::kInterrupted);
    QCOMPARE(pixel(0, 1, 50), interrupted);  // job 1, attempt 1: 0..65 s
    QCOMPARE(pixel(0, 1, 10), interrupted);
    QCOMPARE(pixel(0, 0, 15), completed);   // job 2: 5..25 s
    QCOMPARE(pixel(0, 0, 2.5), completed);  // job 0: 0..5 s
    QCOMPARE(pixel(1, 0, 100), completed);  // job 1, attempt 2: 66..166 s
    // Where nothing ran, neither colour.
    QVERIFY(pixel(0, 0, 40) != completed);    // slot 0 idle after 25 s
    QVERIFY(pixel(0, 1, 80) != interrupted);  // pod-0 gone at 65 s
    QVERIFY(!L.track_center(1, 1, 0));        // pod-1 never used a second slot
    // The state bands: pod-0 draining (45..65 s) on its band strip.
    const LaneGeometry& pod0 = L.lanes()[0];
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(55)), pod0.band_top + 9)),
             state_color(PodState::kDraining));
  }

  void theTimelineCaptionGivesTheHeadlineFigures() {
    // The reference run: no job lost, job 1 of 3 interrupted by the deploy, pod-0 drained in
    // 25 s (deletion at 40 s, exit at 65 s), the deploy took 35 s (30 s to 65 s).
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QString figures = QStringLiteral(
        "job loss 0 · interrupted 1 (33.3 %; deploys 1) · drain p99 25 s · "
        "longest deploy 35 s");
    QCOMPARE(TimelineView::figures(*loaded.runs[0]), figures);
    render(*widget);
    QCOMPARE(view.run_captions().size(), std::size_t{1});
    QVERIFY2(view.run_captions()[0].endsWith(figures), qPrintable(view.run_captions()[0]));
    QVERIFY(view.run_captions()[0].contains(QStringLiteral("(scenario one-pod-rollout, seed 1")));
    // A file with no such figures has no numbers to give, and none made up.
    Results bare;
    QCOMPARE(TimelineView::figures(bare), QString());
  }

  void interruptedAndKilledDoNotLookLikeAPodsState() {
    // An interrupted attempt sits over its draining pod, a killed one over a crashed pod:
    // each far from that state's colour (old palette: 92 and 54).
    QVERIFY(distance(outcome_color(Outcome::kInterrupted), state_color(PodState::kDraining)) >=
            150);
    QVERIFY(distance(outcome_color(Outcome::kKilled), state_color(PodState::kCrashed)) >= 150);
    QVERIFY(distance(outcome_color(Outcome::kKilled), state_color(PodState::kTerminating)) >= 150);
    for (int o = 0; o < kOutcomeCount; ++o) {
      for (int other = 0; other < o; ++other) {
        QVERIFY2(distance(outcome_color(static_cast<Outcome>(o)),
                          outcome_color(static_cast<Outcome>(other))) >= 60,
                 to_string(static_cast<Outcome>(o)));
      }
    }
  }

  void picturesShowNoControls() {
    const Loaded loaded = load({kReference, kDir + QStringLiteral("/one-pod-rollout.sweep.json"),
                                kDir + QStringLiteral("/one-pod-rollout.compare.json")});
    for (ViewKind kind : {ViewKind::kTimeline, ViewKind::kSeries, ViewKind::kSummary,
                          ViewKind::kSweep, ViewKind::kCompare}) {
      auto widget = make_view(kind, loaded, QSize(1200, 700));
      QCOMPARE(visible_controls(*widget), QStringList());
    }
    // The window has them; as a picture (--screenshot) it has the view alone.
    MainWindow window;
    window.resize(1200, 700);
    QVERIFY(window.open_files({kReference}, false).isEmpty());
    window.show_view(ViewKind::kSeries);
    QVERIFY(!visible_controls(window).isEmpty());
    QVERIFY(window.menuBar()->isVisibleTo(&window));
    window.set_picture(true);
    QCOMPARE(visible_controls(window), QStringList());
    QVERIFY(!window.menuBar()->isVisibleTo(&window));
    QVERIFY(!window.statusBar()->isVisibleTo(&window));
    for (const QToolBar* bar : window.findChildren<QToolBar*>())
      QVERIFY(!bar->isVisibleTo(&window));
    for (const QTabBar* bar : window.findChildren<QTabBar*>()) QVERIFY(!bar->isVisibleTo(&window));
  }

  // A picture as scripts/screenshots.sh and a user take it: of the size asked for, and
  // nothing on stderr (no Qt chatter).
  void picturesAreOfTheirSizeAndQuiet_data() {
    QTest::addColumn<QString>("how");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("size");
    QTest::newRow("render timeline") << "--render"
                                     << "timeline"
                                     << "1000x600";
    QTest::newRow("render series") << "--render"
                                   << "series"
                                   << "900x500";
    QTest::newRow("render summary") << "--render"
                                    << "summary"
                                    << "1600x900";
    QTest::newRow("screenshot timeline") << "--screenshot"
                                         << "timeline"
                                         << "1000x600";
    QTest::newRow("screenshot summary") << "--screenshot"
                                        << "summary"
                                        << "700x450";
  }
  void picturesAreOfTheirSizeAndQuiet() {
    QFETCH(QString, how);
    QFETCH(QString, view);
    QFETCH(QString, size);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.png"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));  // Qt would warn of it
    env.remove(QStringLiteral("QT_LOGGING_RULES"));
    if (how == QStringLiteral("--screenshot")) {
      env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    } else {
      env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    }
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(VIEWER_BINARY),
            {how, out, QStringLiteral("--view"), view, QStringLiteral("--size"), size, kReference});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(QString::fromUtf8(p.readAllStandardError()), QString());
    QCOMPARE(p.exitCode(), 0);
    const QStringList wh = size.split('x');
    QCOMPARE(QImage(out).size(), QSize(wh[0].toInt(), wh[1].toInt()));
  }

  void hoverNamesTheAttempt() {
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    const TimelineLayout& L = view.layout();
    const QPoint at(static_cast<int>(L.x_of(50)), *L.track_center(0, 0, 1));
    const QString text = view.tooltip_at(at);
    QVERIFY2(text.contains(QStringLiteral("job 1, attempt 1")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("pod-0, worker 0, slot 1")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("0.000 s → 65.000 s (65.000 s)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("interrupted")), qPrintable(text));
    const QPoint idle(static_cast<int>(L.x_of(40)), *L.track_center(0, 0, 0));
    QCOMPARE(view.attempt_at(idle), nullptr);
    const QPoint band(static_cast<int>(L.x_of(42)), L.lanes()[0].band_top + 5);
    QVERIFY2(view.tooltip_at(band).contains(QStringLiteral("pod-0: quiet, 40.000 s → 45.000 s")),
             qPrintable(view.tooltip_at(band)));
    const QPoint term(static_cast<int>(L.x_of(45)) + 2, L.lanes()[0].band_top + 3);
    QCOMPARE(view.tooltip_at(term), QStringLiteral("pod-0: SIGTERM at 45.000 s (deletion)"));
  }

  void wheelZoomsAroundTheCursorAndDragPans() {
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    auto& view = static_cast<TimelineView&>(*widget);
    const TimelineLayout& L = view.layout();
    // One wheel notch (120) zooms in 1.25x around the time under the cursor, 83 s:
    // [0, 166] -> [83 - 83 / 1.25, 83 + 83 / 1.25] = [16.6, 149.4].
    const QPointF at(L.x_of(83), 300);
    QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QCOMPARE(L.t0(), 16.6);
    QCOMPARE(L.t1(), 149.4);
    // Dragging 100 px to the right moves the content with the mouse: the range moves back
    // by 100 px x 132.8 s / 1460 px (plot width 1600 - 128 - 12).
    QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(800, 300));
    QTest::mouseMove(&view, QPoint(900, 300));
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(900, 300));
    const double dt = 100 * 132.8 / 1460;
    QVERIFY(std::abs(L.t0() - (16.6 - dt)) < 1e-9);
    QVERIFY(std::abs(L.t1() - (149.4 - dt)) < 1e-9);
    // Panning stops at the start of the run.
    view.pan_pixels(5000);
    QCOMPARE(L.t0(), 0.0);
    QVERIFY(std::abs(L.t1() - 132.8) < 1e-9);
    // Read again (a file changed on disk), the view keeps its range.
    view.set_range(20, 60);
    view.set_runs(loaded.runs);
    QCOMPARE(L.t0(), 20.0);
    QCOMPARE(L.t1(), 60.0);
    // A double click shows the whole run again.
    QTest::mouseDClick(&view, Qt::LeftButton, {}, QPoint(800, 300));
    QCOMPARE(L.t0(), 0.0);
    QCOMPARE(L.t1(), 166.0);
  }

  void seriesDrawsTheReferenceCounts() {
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    // In flight: 2 from 0 s, 1 after job 2 ends at 25 s, 0 while job 1 backs off (65 s),
    // 1 from its retry at 66 s, 0 at the end (166 s); drawn as a staircase. The row at 5 s
    // (job 0 done, job 2 taken: still 2) changes nothing and is not kept.
    using P = QPointF;
    QCOMPARE(view.points(0, QStringLiteral("in flight")),
             (QList<P>{P(0, 2), P(25, 2), P(25, 1), P(65, 1), P(65, 0), P(66, 0), P(66, 1),
                       P(166, 1), P(166, 0)}));
    // Each line holds its last value to the end of what is shown (one point draws nothing).
    QCOMPARE(view.points(0, QStringLiteral("capacity")), (QList<P>{P(0, 2), P(166, 2)}));
    // Zoomed to 20..70 s: re-sampled from the value in force at 20 s.
    view.zoom_time(20, 70);
    QCOMPARE(
        view.points(0, QStringLiteral("in flight")),
        (QList<P>{P(20, 2), P(25, 2), P(25, 1), P(65, 1), P(65, 0), P(66, 0), P(66, 1), P(70, 1)}));
  }

  void sweepAndCompareDrawTheirFiles() {
    // Sweep of the reference over worker.grace_period 10s, 40s, 1m10s (2 seeds each, the
    // same run): wasted work 55 s (job 1 interrupted at 45 + 10 s), then 70 s (SIGKILLed at
    // the platform's deadline, 40 + 30 s).
    const Loaded sweeps = load({kDir + QStringLiteral("/one-pod-rollout.sweep.json")});
    auto sw =
        make_view(ViewKind::kSweep, sweeps, QSize(1000, 600), QStringLiteral("wasted_work_s"));
    const auto lines = static_cast<SweepView&>(*sw).lines();
    QCOMPARE(lines.size(), std::size_t{1});
    using P = QPointF;
    QCOMPARE(lines[0].mean, (QList<P>{P(10, 55), P(40, 70), P(70, 70)}));
    QCOMPARE(lines[0].high, lines[0].mean);  // one outcome per point: a band of width 0
    QVERIFY(lines[0].name.contains(QStringLiteral("n=2 seeds")));
    // Compare ojs, sidekiq, naive (3 seeds): the seconds group, wasted work first.
    const Loaded compare = load({kDir + QStringLiteral("/one-pod-rollout.compare.json")});
    auto cv = make_view(ViewKind::kCompare, compare, QSize(1000, 600), QStringLiteral("seconds"));
    const auto& view = static_cast<CompareView&>(*cv);
    QCOMPARE(view.categories(), (QStringList{"ojs", "sidekiq", "naive"}));
    const auto bars = view.bars();
    QCOMPARE(bars.size(), std::size_t{4});
    QCOMPARE(bars[0].first, QStringLiteral("wasted_work_s"));
    // naive has no TERM handler and is its container's PID 1: the TERM at 45 s is ignored
    // and the kubelet SIGKILLs it at 40 + 30 s, with the 100 s job it ran from 0 s.
    // sidekiq requeues it once no more than 0.5 s of its 20 s -t is left, the push landing
    // 1 ms later: 64.501 s.
    QCOMPARE(bars[0].second, (QList<double>{65, 64.501, 70}));
    QCOMPARE(bars[3].first, QStringLiteral("deploy_duration_s.mean"));
    QCOMPARE(bars[3].second.at(0), 35.0);
  }

  void theMetricChoiceDefaultsAndSurvivesAReload() {
    // A sweep view opens on job_loss, a compare view on all metrics; a chosen metric
    // stays chosen when the files are loaded again (reload on change), and an unknown one
    // is refused without changing anything.
    const Loaded sweeps = load({kDir + QStringLiteral("/one-pod-rollout.sweep.json")});
    SweepView sw;
    sw.set_sweeps(sweeps.sweeps);
    QCOMPARE(sw.metric(), QStringLiteral("job_loss"));
    QVERIFY(sw.set_metric(QStringLiteral("wasted_work_s")));
    QVERIFY(!sw.set_metric(QStringLiteral("no_such_metric")));
    sw.set_sweeps(sweeps.sweeps);
    QCOMPARE(sw.metric(), QStringLiteral("wasted_work_s"));
    QCOMPARE(sw.lines()[0].mean.at(0), QPointF(10, 55));  // drawn for the kept choice
    const Loaded compare = load({kDir + QStringLiteral("/one-pod-rollout.compare.json")});
    CompareView cv;
    cv.set_comparisons(compare.comparisons);
    QCOMPARE(cv.metric(), QStringLiteral("all"));
    QVERIFY(cv.set_metric(QStringLiteral("seconds")));
    cv.set_comparisons(compare.comparisons);
    QCOMPARE(cv.metric(), QStringLiteral("seconds"));
    QCOMPARE(cv.bars()[0].first, QStringLiteral("wasted_work_s"));
  }

  void pixelColumnsShowTheWorstOutcome() {
    // One pod, one slot: 300 attempts of 0.1 s back to back over 0..30 s, all completed but
    // the one at 10.0..10.1 s, killed. At 1460 px for 30 s an attempt is ~5 px wide; zoomed
    // out to 0..300 s (by a run end at 300 s) it is 0.5 px, so each pixel column holds two.
    std::string rows;
    for (int i = 0; i < 300; ++i) {
      rows += (i ? "," : "") + QStringLiteral("[%1,1,0,0,0,%2,%3,\"%4\"]")
                                   .arg(i)
                                   .arg(i / 10.0)
                                   .arg((i + 1) / 10.0)
                                   .arg(i == 100 ? "killed" : "completed")
                                   .toStdString();
    }
    const std::string text =
        R"({"schema_version":"1.1","run":{"ended_at_s":300.0},"summary":{},"scenario":{},
        "pods":[{"id":"pod-0"}],"timeline":{"pod_states":{"columns":["t_s","pod","state"],
        "rows":[[0.0,0,"ready"]]},"attempts":{"columns":["job","attempt","pod","worker","slot",
        "start_s","end_s","outcome"],"rows":[)" +
        rows + "]}}}";
    Loaded loaded;
    Document doc = parse_document(text, "many.json");
    QVERIFY2(doc.ok(), doc.error.c_str());
    loaded.add(std::move(doc));
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QImage image = render(*widget);
    const TimelineLayout& L = view.layout();
    const int y = *L.track_center(0, 0, 0);
    const int killed_x = static_cast<int>(L.x_of(10.05));
    QCOMPARE(QColor(image.pixel(killed_x, y)), outcome_color(Outcome::kKilled));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(5)), y)),
             outcome_color(Outcome::kCompleted));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(20)), y)),
             outcome_color(Outcome::kCompleted));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(50)), y)), background_color());
  }

  void nothingToShowIsExplained() {
    Loaded none;
    QCOMPARE(QString::fromStdString(render_problem(ViewKind::kSweep, none)),
             QStringLiteral("no sweep file given (drainsim sweep ... --out FILE)"));
    QByteArray text = slurp(kReference);
    const qsizetype from = text.indexOf("\"timeline\":"), to = text.indexOf(",\"warnings\"");
    text.remove(from, to - from + 1);
    Loaded plain;
    plain.add(parse_document(std::string_view(text.constData(), text.size()), "plain.json"));
    QCOMPARE(QString::fromStdString(render_problem(ViewKind::kTimeline, plain)),
             QStringLiteral("plain.json: this run has no timeline: run drainsim with --timeline "
                            "to record one"));
    QCOMPARE(QString::fromStdString(render_problem(ViewKind::kSummary, plain)), QString());
  }

  // The command line, as a user runs it.
  void renderCommand_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("timeline") << QStringList{"--view", "timeline", "--size", "800x450", kReference}
                              << 0 << "(800x450, timeline view, 2 pod lanes, 0s to 2m46s)";
    QTest::newRow("unknown view") << QStringList{"--view", "gantt", kReference} << 2
                                  << "--view: expected timeline, series, summary, sweep or compare";
    QTest::newRow("bad size") << QStringList{"--size", "big", kReference} << 2
                              << "--size: expected WIDTHxHEIGHT like 1600x900, got \"big\"";
    QTest::newRow("sweep view of a run") << QStringList{"--view", "sweep", kReference} << 2
                                         << "--view sweep: nothing to show: no sweep file given";
  }
  void renderCommand() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.png"));
    QProcess p;
    p.start(QStringLiteral(VIEWER_BINARY), QStringList{"--render", out} + args);
    QVERIFY(p.waitForFinished(60000));
    const QString output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    QCOMPARE(p.exitCode(), code);
    QVERIFY2(output.contains(message), qPrintable(output));
    if (code == 0) {
      QCOMPARE(QImage(out).size(), QSize(800, 450));
    } else {
      QVERIFY(!QFile::exists(out));
    }
  }

  void brokenFilesAreReportedNotFatal() {
    QTemporaryDir dir;
    const QString truncated = dir.filePath(QStringLiteral("truncated.json"));
    const QByteArray text = slurp(kReference);
    QFile f(truncated);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.left(text.size() / 3));
    f.close();
    QProcess p;
    p.start(QStringLiteral(VIEWER_BINARY),
            {"--render", dir.filePath(QStringLiteral("x.png")), truncated});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(truncated + QStringLiteral(": the JSON ends early")), qPrintable(err));

    MainWindow window;
    const QStringList errors = window.open_files({truncated, kReference}, false);
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors[0].contains(QStringLiteral("truncated")));
    QCOMPARE(window.loaded().runs.size(), std::size_t{1});
  }

  void severalFilesDropAndReloadOnChange() {
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("rr.json"));
    QVERIFY(QFile::copy(kReference, copy));
    MainWindow window;
    QVERIFY(window.open_files({copy, kDir + QStringLiteral("/one-pod-rollout.compare.json")}, false)
                .isEmpty());
    QCOMPARE(window.loaded().runs.size(), std::size_t{1});
    QCOMPARE(window.loaded().comparisons.size(), std::size_t{1});
    QCOMPARE(window.loaded().runs[0]->seed, std::uint64_t{1});

    // Dropping a file opens it beside the others.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(kDir + QStringLiteral("/one-pod-rollout.sweep.json"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(window.loaded().sweeps.size(), std::size_t{1});
    QCOMPARE(window.paths().size(), 3);

    // The run is rewritten on disk (seed 7 now): the window reads it again.
    QByteArray text = slurp(copy);
    text.replace("\"seed\":1,", "\"seed\":7,");
    QFile f(copy);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    QTRY_COMPARE_WITH_TIMEOUT(window.loaded().runs[0]->seed, std::uint64_t{7}, 10000);
    QCOMPARE(window.loaded().runs.size(), std::size_t{1});
  }
};

QTEST_MAIN(RenderTest)
#include "render_test.moc"
