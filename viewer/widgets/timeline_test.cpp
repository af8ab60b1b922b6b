// The timeline's rows, marker labels, time window and legend (issue 18), offscreen.
// Hand-worked cases use small made-up runs and testdata/one-pod-rollout.results.json
// (render_test.cpp describes it: pod-0 runs jobs 0 and 2 on slot 0 over 0..25 s and job 1
// on slot 1 over 0..65 s, interrupted; pod-1, of the rollout at 30 s, runs job 1 again over
// 66..166 s). The fleet-sized cases run the real drainsim (DRAINSIM_BINARY, or the
// environment variable of that name) on the shipped scenarios.
#include <QAction>
#include <QApplication>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "widgets/main_window.h"
#include "widgets/marker_labels.h"
#include "widgets/palette.h"
#include "widgets/render.h"
#include "widgets/replica_rows.h"
#include "widgets/series_view.h"
#include "widgets/test_support.h"
#include "widgets/time_window.h"
#include "widgets/timeline_view.h"

using namespace drainsim::viewer;
using drainsim::viewer::testing::load;

namespace {

const QString kDir = QStringLiteral(VIEWER_TESTDATA);
const QString kReference = kDir + QStringLiteral("/one-pod-rollout.results.json");
const QString kScenarios = QStringLiteral(DRAINSIM_SCENARIOS);

QString drainsim() {
  const QString env = qEnvironmentVariable("DRAINSIM_BINARY");
  return env.isEmpty() ? QStringLiteral(DRAINSIM_BINARY) : env;
}

// Runs drainsim on a shipped scenario with --timeline into `dir`; the results file's path.
QString run_drainsim(const QTemporaryDir& dir, const QString& scenario, const QStringList& extra) {
  const QString out = dir.filePath(scenario + QStringLiteral(".json"));
  QProcess p;
  p.start(drainsim(),
          QStringList{"run", kScenarios + "/" + scenario + ".json", "--timeline", "--out", out} +
              extra);
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    qFatal("drainsim failed: %s", p.readAllStandardError().constData());
  }
  return out;
}

Lane pod(int index, int generation, double created, std::optional<double> deleted,
         std::optional<double> gone) {
  Lane l;
  l.pod = index;
  l.id = "pod-" + std::to_string(index);
  l.generation = generation;
  l.created = created;
  l.deleted = deleted;
  l.gone = gone;
  return l;
}

std::vector<int> lanes_of(const ReplicaRow& row) {
  std::vector<int> out;
  for (const RowPod& p : row.pods) out.push_back(p.lane);
  return out;
}

QProcess* run_viewer(const QStringList& args) {
  auto* p = new QProcess();
  p->start(QStringLiteral(VIEWER_BINARY), args);
  p->waitForFinished(60000);
  return p;
}

}  // namespace

class TimelineTest : public QObject {
  Q_OBJECT

 private slots:
  void replicaRowsHandWorked() {
    // Two replicas; a rollout at 60 s with maxSurge 1: pod-2 starts at 60 s, ready at 70 s,
    // when pod-0 is deleted (it drains until 95 s); pod-3 starts at 70 s, pod-1 is deleted
    // at 80 s and drains until 105 s. Then pod-3 is deleted at 160 s (gone 170 s) and its
    // ReplicaSet recreates it as pod-5 at 160 s; pod-4 is a scale-up at 150 s. Run end 200 s.
    const std::vector<Lane> lanes = {pod(0, 0, 0, 70, 95),   pod(1, 0, 0, 80, 105),
                                     pod(2, 1, 60, {}, {}),  pod(3, 1, 70, 160, 170),
                                     pod(4, 1, 150, {}, {}), pod(5, 1, 160, {}, {})};
    const std::vector<ReplicaRow> rows = replica_rows(lanes, 200);
    // pod-2 (60 s) claims the row of the old pod deleted first after 60 s: pod-0 (70 s);
    // pod-3 (70 s) the next, pod-1 (80 s). pod-4 is of the same generation as every pod
    // alive: a new row. pod-5 takes pod-3's row, released at 160 s.
    QCOMPARE(rows.size(), std::size_t{3});
    QCOMPARE(lanes_of(rows[0]), (std::vector<int>{0, 2}));
    QCOMPARE(lanes_of(rows[1]), (std::vector<int>{1, 3, 5}));
    QCOMPARE(lanes_of(rows[2]), (std::vector<int>{4}));
    // pod-0 keeps the row until it is gone at 95 s; pod-2 is on the surge strip 60..95 s.
    QCOMPARE(rows[0].pods[0].from, 0.0);
    QCOMPARE(rows[0].pods[0].to, 95.0);
    QCOMPARE(rows[0].pods[1].created, 60.0);
    QCOMPARE(rows[0].pods[1].from, 95.0);
    QCOMPARE(rows[0].pods[1].to, 200.0);
    QCOMPARE(rows[0].owner_at(90)->lane, 0);
    QCOMPARE(rows[0].owner_at(90, true)->lane, 2);
    QCOMPARE(rows[0].owner_at(100)->lane, 2);
    QCOMPARE(rows[0].owner_at(100, true), nullptr);
    // Row 1: pod-1 until 105 s, pod-3 from 105 s until it is gone at 170 s, then pod-5
    // (on the strip from 160 s).
    QCOMPARE(rows[1].pods[0].to, 105.0);
    QCOMPARE(rows[1].pods[1].from, 105.0);
    QCOMPARE(rows[1].pods[1].to, 170.0);
    QCOMPARE(rows[1].pods[2].created, 160.0);
    QCOMPARE(rows[1].pods[2].from, 170.0);
    // Per pod: six rows, one each.
    QCOMPARE(pod_rows(lanes, 200).size(), std::size_t{6});
    QCOMPARE(default_row_mode(6), RowMode::kPod);
    QCOMPARE(default_row_mode(kReplicaRowsAbovePods + 1), RowMode::kReplica);
  }

  void theOnePodRolloutIsOneReplicaRow() {
    // pod-1 (rollout 1, created 30 s) replaces pod-0 (deleted 40 s, gone 65 s): one row,
    // pod-0's until 65 s, pod-1 on the surge strip from 30 s. Its attempt 66..166 s is
    // drawn on the row's slot-0 track, pod-0's interrupted job 1 on slot 1.
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900), {},
                            ViewOptions{RowMode::kReplica, std::nullopt});
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QImage image = render(*widget);
    const TimelineLayout& L = view.layout();
    QCOMPARE(L.lanes().size(), std::size_t{1});
    QCOMPARE(L.track_center(0, 0, 0), L.track_center(0, 1, 0));
    const int y0 = *L.track_center(0, 1, 0), y1 = *L.track_center(0, 0, 1);
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(100)), y0)),
             outcome_color(Outcome::kCompleted));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(50)), y1)),
             outcome_color(Outcome::kInterrupted));
    const LaneGeometry& g = L.lanes()[0];
    QVERIFY(g.strip_height >= 2);
    // Band strip: pod-0 draining at 55 s; surge strip: pod-1 starting at 35 s, ready at 50 s.
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(55)), g.band_top + 2)),
             state_color(PodState::kDraining));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(35)), g.strip_top)),
             state_color(PodState::kStarting));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(50)), g.strip_top)),
             state_color(PodState::kReady));
    // After 65 s the band strip is pod-1's (ready), the surge strip empty.
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(100)), g.band_top + 2)),
             state_color(PodState::kReady));
    QVERIFY(QColor(image.pixel(static_cast<int>(L.x_of(100)), g.strip_top)) !=
            state_color(PodState::kReady));
    // The label's tooltip lists the pods the row held.
    const QString tip = view.tooltip_at(QPoint(10, g.top + 3));
    QVERIFY2(tip.contains(QStringLiteral("replica 0, held by 2 pod(s)")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("pod-1 · rollout 1: 30s → the end")), qPrintable(tip));
  }

  void replicaRowsGive100RowsForTheReferenceHour() {
    // The reference hour (scenarios/bench-reference.json: 100 replicas, 5 rollouts with
    // maxSurge 25 %, 11 OOM kills restarting containers in place) at 5 jobs/s instead of
    // 1,400: the same pods, a small file. 600 pods, 100 rows.
    QTemporaryDir dir;
    const QString file = run_drainsim(dir, QStringLiteral("bench-reference"),
                                      {"--set", "workload.arrival.rate_per_s=5"});
    const Loaded loaded = load({file});
    const Results& run = *loaded.runs[0];
    QCOMPARE(run.lanes.size(), std::size_t{600});
    const std::vector<ReplicaRow> rows = replica_rows(run.lanes, run.ended_at);
    QCOMPARE(rows.size(), std::size_t{100});
    std::vector<int> seen(run.lanes.size(), 0);
    for (const ReplicaRow& row : rows) {
      QCOMPARE(row.pods.size(), std::size_t{6});  // one pod per generation 0..5
      for (std::size_t i = 0; i < row.pods.size(); ++i) {
        const RowPod& p = row.pods[i];
        ++seen[p.lane];
        QCOMPARE(run.lanes[p.lane].generation, static_cast<int>(i));
        // The parts follow each other with no overlap.
        if (i > 0) QCOMPARE(p.from, row.pods[i - 1].to);
        QVERIFY(p.created <= p.from);
      }
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // The view picks replica rows for 600 pods and shows all 100 rows in the picture.
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    QCOMPARE(view.row_mode(), RowMode::kReplica);
    QCOMPARE(view.layout().lanes().size(), std::size_t{100});
    QVERIFY(view.layout().lanes().back().bottom <= view.layout().rows_bottom());
    for (int lane = 0; lane < 600; ++lane) QVERIFY(view.layout().row_of(0, lane));
  }

  void theWindowTogglesRowsAndScrolls() {
    // In the window, per-pod lanes of the reference hour (600) do not fit 14 px each in
    // 900 px: the rows scroll under a fixed axis. The View > Replica rows action switches.
    QTemporaryDir dir;
    const QString file = run_drainsim(dir, QStringLiteral("bench-reference"),
                                      {"--set", "workload.arrival.rate_per_s=5"});
    MainWindow window;
    window.resize(1600, 900);
    QVERIFY(window.open_files({file}, false).isEmpty());
    window.show();
    TimelineView& view = *window.timeline();
    QCOMPARE(view.row_mode(), RowMode::kReplica);
    QAction* toggle = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
      if (a->text() == QStringLiteral("&Replica rows")) toggle = a;
    }
    QVERIFY(toggle);
    QVERIFY(toggle->isChecked());
    toggle->trigger();
    QCOMPARE(view.row_mode(), RowMode::kPod);
    const TimelineLayout& L = view.layout();
    QCOMPARE(L.lanes().size(), std::size_t{600});
    // 600 rows of at least 14 px: 8,400 px of rows, far more than the window.
    for (std::size_t i = 1; i < L.lanes().size(); ++i) {
      QVERIFY(L.lanes()[i].top - L.lanes()[i - 1].top >= TimelineLayout::kMinLaneHeight);
    }
    QVERIFY(L.max_scroll() > 7000);
    const int top_before = L.lanes()[10].top;
    QWheelEvent wheel(QPointF(800, 400), view.mapToGlobal(QPointF(800, 400)), QPoint(),
                      QPoint(0, -120), Qt::NoButton, Qt::ShiftModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QCOMPARE(L.scroll(), 3 * TimelineLayout::kMinLaneHeight);  // one notch: three rows
    QCOMPARE(L.lanes()[10].top, top_before - 3 * TimelineLayout::kMinLaneHeight);
    QCOMPARE(L.t0(), 0.0);  // the time range did not change
    toggle->trigger();
    QCOMPARE(view.row_mode(), RowMode::kReplica);
    QCOMPARE(L.lanes().size(), std::size_t{100});
  }

  void placeLabelsHandWorked() {
    // TERM at x 100 (30 px, "T" 7 px) and KILL at 102 (24 px): KILL's label would start at
    // 107, inside TERM's [105, 135) + 2 px gap. One line: KILL dropped (its abbreviation too
    // starts at 107). Two lines: KILL on the second, in full. OOM at 140 starts at 145 >= 137:
    // first line again.
    const std::vector<LabelWish> wishes = {{100, 30, 7}, {102, 24, 7}, {140, 20, 7}};
    std::vector<LabelPlace> one = place_labels(wishes, 1, 1000);
    QVERIFY(one[0].shown && !one[0].abbreviated);
    QCOMPARE(one[0].left, 105);
    QCOMPARE(one[0].width, 30);
    QVERIFY(!one[1].shown);
    QVERIFY(one[2].shown);
    QCOMPARE(one[2].line, 0);
    std::vector<LabelPlace> two = place_labels(wishes, 2, 1000);
    QVERIFY(two[1].shown && !two[1].abbreviated);
    QCOMPARE(two[1].line, 1);
    QCOMPARE(two[1].left, 107);
    // Near the right edge the abbreviation is used when the full text does not fit.
    std::vector<LabelPlace> edge = place_labels({{980, 30, 7}}, 1, 1000);
    QVERIFY(edge[0].shown && edge[0].abbreviated);
    QCOMPARE(edge[0].width, 7);
  }

  void markerLabelsNeverOverlap_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("two lines of text in the lane") << QSize(800, 300);
    QTest::newRow("lanes one line high") << QSize(800, 170);
  }
  void markerLabelsNeverOverlap() {
    QFETCH(QSize, size);
    // Three pods, each TERMed at 100 s and KILLed at 102 s (its grace deadline), in a run of
    // 600 s: at 800 px wide 2 s is 2.2 px, and "TERM" is wider than that.
    // JSON written with ' for ", turned into " below.
    std::string pods, states, sigs;
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i), sep = i ? "," : "";
      pods += sep + "{'id':'pod-" + n +
              "','created_s':0.0,'deleted_s':100.0,'gone_s':102.0,'generation':0}";
      states +=
          sep + "[0.0," + n + ",'ready'],[100.0," + n + ",'draining'],[102.0," + n + ",'gone']";
      sigs += sep + "[100.0," + n + ",'SIGTERM',true,'deletion'],[102.0," + n +
              ",'SIGKILL',true,'deadline']";
    }
    std::string text =
        "{'schema_version':'1.1','run':{'ended_at_s':600.0},'summary':{},'scenario':{},"
        "'pods':[" +
        pods +
        "],'timeline':{'pod_states':{'columns':['t_s','pod','state'],"
        "'rows':[" +
        states +
        "]},'signals':{'columns':['t_s','pod','signal','delivered',"
        "'source'],'rows':[" +
        sigs +
        "]},'attempts':{'columns':['job','attempt','pod',"
        "'worker','slot','start_s','end_s','outcome'],'rows':[[0,1,0,0,0,10.0,102.0,'killed'],"
        "[1,1,1,1,0,10.0,102.0,'killed'],[2,1,2,2,0,10.0,102.0,'killed']]}}}";
    std::replace(text.begin(), text.end(), '\'', '"');
    Document doc = parse_document(text, "markers.json");
    QVERIFY2(doc.ok(), doc.error.c_str());
    Loaded loaded;
    loaded.add(std::move(doc));
    auto widget = make_view(ViewKind::kTimeline, loaded, size);
    const auto& view = static_cast<const TimelineView&>(*widget);
    render(*widget);
    const TimelineLayout& L = view.layout();
    QVERIFY(L.x_of(102) - L.x_of(100) < 3);
    const std::vector<QRect>& rects = view.marker_label_rects();
    QVERIFY(rects.size() >= 3);  // at least each pod's TERM
    for (std::size_t i = 0; i < rects.size(); ++i) {
      for (std::size_t j = i + 1; j < rects.size(); ++j) {
        QVERIFY2(!rects[i].intersects(rects[j]),
                 qPrintable(QStringLiteral("label %1 (%2,%3 %4x%5) overlaps label %6")
                                .arg(i)
                                .arg(rects[i].x())
                                .arg(rects[i].y())
                                .arg(rects[i].width())
                                .arg(rects[i].height())
                                .arg(j)));
      }
    }
    // The tooltip names both signals in full.
    const QPoint at(static_cast<int>(L.x_of(101)), L.lanes()[0].band_top + 2);
    const QString tip = view.tooltip_at(at);
    QVERIFY2(tip.contains(QStringLiteral("pod-0: SIGTERM at 100.000 s (deletion)")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("pod-0: SIGKILL at 102.000 s (deadline)")),
             qPrintable(tip));
  }

  void fromToShowsOnlyThatWindow() {
    // 30 s .. 1m10s of the one-pod rollout: jobs 0 and 2 (slot 0, 0..25 s) are outside it
    // and not drawn; job 1 (slot 1, 0..65 s, interrupted) runs from the left edge to 65 s.
    const Loaded loaded = load({kReference});
    const WindowChoice w = choose_window({"30s", "1m10s", ""}, loaded.runs);
    QCOMPARE(QString::fromStdString(w.error), QString());
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900), {},
                            ViewOptions{std::nullopt, w.window});
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QImage image = render(*widget);
    const TimelineLayout& L = view.layout();
    QCOMPARE(L.t0(), 30.0);
    QCOMPARE(L.t1(), 70.0);
    const int slot0 = *L.track_center(0, 0, 0), slot1 = *L.track_center(0, 0, 1);
    const QColor completed = outcome_color(Outcome::kCompleted);
    for (int x = L.plot_left(); x < L.plot_right(); ++x) {
      QVERIFY2(QColor(image.pixel(x, slot0)) != completed, qPrintable(QString::number(x)));
    }
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(31)), slot1)),
             outcome_color(Outcome::kInterrupted));
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(64)), slot1)),
             outcome_color(Outcome::kInterrupted));
    QVERIFY(QColor(image.pixel(static_cast<int>(L.x_of(67)), slot1)) !=
            outcome_color(Outcome::kInterrupted));
    // pod-1's retry of job 1 starts at 66 s: drawn from x(66) on.
    QCOMPARE(QColor(image.pixel(static_cast<int>(L.x_of(68)), *L.track_center(0, 1, 0))),
             completed);
  }

  void fromToAndAroundOnTheRollingRestart() {
    // scenarios/rolling-restart.json: a rollout from 3m that ends at 3m55s (55 s; drainsim
    // prints "deploys: 1 finished, mean 55s"). --around deploy widens it by
    // max(15 s, 55 / 4 s) = 15 s each side: 2m45s .. 4m10s.
    QTemporaryDir dir;
    const Loaded loaded = load({run_drainsim(dir, QStringLiteral("rolling-restart"), {})});
    const WindowChoice fixed = choose_window({"2m", "6m", ""}, loaded.runs);
    QVERIFY(fixed.window);
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900), {},
                            ViewOptions{std::nullopt, fixed.window});
    const TimelineLayout& L = static_cast<const TimelineView&>(*widget).layout();
    QCOMPARE(L.t0(), 120.0);
    QCOMPARE(L.t1(), 360.0);
    const WindowChoice deploy = choose_window({"", "", "deploy"}, loaded.runs);
    QVERIFY(deploy.window);
    QCOMPARE(deploy.window->t0, 165.0);
    QCOMPARE(deploy.window->t1, 250.0);
    const WindowChoice at = choose_window({"", "", "5m"}, loaded.runs);
    QCOMPARE(at.window->t0, 270.0);
    QCOMPARE(at.window->t1, 330.0);
    // The series view is zoomed to the same window: its lines start at 2m.
    auto series = make_view(ViewKind::kSeries, loaded, QSize(1200, 700), {},
                            ViewOptions{std::nullopt, fixed.window});
    const QList<QPointF> in_flight =
        static_cast<SeriesView&>(*series).points(0, QStringLiteral("in flight"));
    QVERIFY(!in_flight.isEmpty());
    QCOMPARE(in_flight.front().x(), 120.0);
    QVERIFY(in_flight.back().x() <= 360.0);
  }

  void windowCommandLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("ok") << QStringList{"--from", "30s", "--to", "1m10s", kReference} << 0
                        << "(800x450, timeline view, 2 pod lanes, 30s to 1m10s)";
    QTest::newRow("around deploy")
        << QStringList{"--around", "deploy", kReference} << 0
        << "(800x450, timeline view, 2 pod lanes, 15s to 1m20s)";  // 30..65 s, 15 s each side
    QTest::newRow("series window") << QStringList{"--view", "series", "--from", "1m", kReference}
                                   << 0 << "(800x450, series view)";
    QTest::newRow("not a duration") << QStringList{"--from", "x", kReference} << 2
                                    << "--from: expected a duration like 2m, got \"x\"";
    QTest::newRow("to before from") << QStringList{"--from", "2m", "--to", "1m", kReference} << 2
                                    << "--to 1m is not after --from 2m";
    QTest::newRow("after the end") << QStringList{"--from", "1h", kReference} << 2
                                   << "--from 1h is not before the run's end (2m46s)";
    QTest::newRow("no chaos") << QStringList{"--around", "chaos", kReference} << 2
                              << "--around chaos: the run has no chaos event";
    QTest::newRow("around what")
        << QStringList{"--around", "lunch", kReference} << 2
        << "--around: expected deploy, chaos or a time like 3m, got \"lunch\"";
    QTest::newRow("both") << QStringList{"--around", "deploy", "--from", "1m", kReference} << 2
                          << "--around cannot be combined with --from or --to";
    QTest::newRow("rows") << QStringList{"--rows", "diagonal", kReference} << 2
                          << "--rows: expected replica or pod, got \"diagonal\"";
    QTest::newRow("summary window")
        << QStringList{"--view", "summary", "--from", "1m", kReference} << 2
        << "--from, --to and --around are for --view timeline or series";
  }
  void windowCommandLine() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.png"));
    std::unique_ptr<QProcess> p(
        run_viewer(QStringList{"--render", out, "--size", "800x450"} + args));
    const QString output =
        QString::fromUtf8(p->readAllStandardOutput() + p->readAllStandardError());
    QCOMPARE(p->exitCode(), code);
    QVERIFY2(output.contains(message), qPrintable(output));
    QCOMPARE(QFile::exists(out), code == 0);
  }

  void theStateLegendShowsThePaletteAndNoWindowColour() {
    const Loaded loaded = load({kReference});
    auto widget = make_view(ViewKind::kTimeline, loaded, QSize(1600, 900));
    const auto& view = static_cast<const TimelineView&>(*widget);
    const QImage image = render(*widget);
    const auto& legend = view.state_legend();
    QCOMPARE(legend.size(), std::size_t{kPodStateCount});
    // What the shading looks like over the background.
    auto over_background = [](QColor c) {
      const double a = c.alphaF();
      const QColor bg = background_color();
      return QColor(static_cast<int>(std::lround(c.red() * a + bg.red() * (1 - a))),
                    static_cast<int>(std::lround(c.green() * a + bg.green() * (1 - a))),
                    static_cast<int>(std::lround(c.blue() * a + bg.blue() * (1 - a))));
    };
    const QColor deploy = over_background(deploy_window_color());
    const QColor chaos = over_background(chaos_window_color());
    auto distance = [](QColor a, QColor b) {
      return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
             std::abs(a.blue() - b.blue());
    };
    for (int s = 0; s < kPodStateCount; ++s) {
      const auto state = static_cast<PodState>(s);
      QCOMPARE(legend[s].first, state);
      const QColor swatch(image.pixel(legend[s].second.center()));
      QCOMPARE(swatch, state_color(state));
      // Far from both shadings (sum of channel differences), and from every other state.
      QVERIFY2(distance(swatch, deploy) >= 60, to_string(state));
      QVERIFY2(distance(swatch, chaos) >= 60, to_string(state));
      QVERIFY(state_color(state) != deploy_window_color());
      QVERIFY(state_color(state) != chaos_window_color());
      for (int o = 0; o < s; ++o) {
        QVERIFY2(distance(swatch, state_color(static_cast<PodState>(o))) >= 60, to_string(state));
      }
    }
  }
};

QTEST_MAIN(TimelineTest)
#include "timeline_test.moc"
