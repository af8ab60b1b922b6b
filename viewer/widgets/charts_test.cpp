// The charts (series, compare, sweep), offscreen, through each chart's own mapping
// (QChart::mapToPosition) and the pixels rendered there. The reference run
// (testdata/one-pod-rollout.results.json, 0..166 s): capacity 2 throughout (pod-0 ready
// from 0 s, pod-1 ready at 40 s as pod-0 turns quiet), in flight 2 until 25 s then 1, 0 at
// 65 s, 1 from 66 s; a deploy from 30 s until pod-0 is gone at 65 s; SIGTERM at 45 s.
#include <QApplication>
#include <QBarSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QRegularExpression>
#include <QtTest>

#include "widgets/compare_view.h"
#include "widgets/palette.h"
#include "widgets/render.h"
#include "widgets/series_view.h"
#include "widgets/sweep_view.h"
#include "widgets/tick_axis.h"

using namespace drainsim::viewer;

namespace {

const QString kDir = QStringLiteral(VIEWER_TESTDATA);
const QString kReference = kDir + QStringLiteral("/one-pod-rollout.results.json");
const QColor kCapacity(0x2c, 0xa0, 0x2c);

Loaded load_file(const QString& f) {
  Loaded loaded;
  Document d = load_document(f.toStdString());
  if (!d.ok()) qFatal("%s", d.error.c_str());
  loaded.add(std::move(d));
  return loaded;
}

Loaded load_text(const std::string& text, const char* name) {
  Loaded loaded;
  Document d = parse_document(text, name);
  if (!d.ok()) qFatal("%s", d.error.c_str());
  loaded.add(std::move(d));
  return loaded;
}

QAbstractSeries* series_named(QChart* chart, const QString& name) {
  for (QAbstractSeries* s : chart->series()) {
    if (s->name() == name) return s;
  }
  qFatal("no series %s", qPrintable(name));
}

TickAxis* axis_of(QChart* chart, QAbstractSeries* s, Qt::Orientation o) {
  for (QAbstractAxis* a : chart->axes(o, s)) {
    if (auto* t = qobject_cast<TickAxis*>(a)) return t;
  }
  qFatal("%s has no round-tick axis", qPrintable(s->name()));
}

// Where the point `value` of `series` lands in the picture of `root` (which holds `view`).
QPoint pixel_of(QChartView* view, QWidget* root, QPointF value, QAbstractSeries* series) {
  const QPointF scene = view->chart()->mapToScene(view->chart()->mapToPosition(value, series));
  return view->mapTo(root, view->mapFromScene(scene));
}

bool near(QColor a, const QColor& b, int tolerance = 40) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
             std::abs(a.blue() - b.blue()) <=
         tolerance;
}

// Whether `color` is at `at` or a pixel to its left or right (a thin line's antialiasing
// spreads it over two columns when it falls between them).
bool near_x(const QImage& image, QPoint at, const QColor& color, int tolerance = 40) {
  for (int dx : {0, -1, 1}) {
    if (near(image.pixelColor(at + QPoint(dx, 0)), color, tolerance)) return true;
  }
  return false;
}

// How many pixel columns from x0 to x1 have `color` within a pixel of row y.
int columns_with(const QImage& image, int x0, int x1, int y, const QColor& color) {
  int n = 0;
  for (int x = x0; x <= x1; ++x) {
    for (int dy = -1; dy <= 1; ++dy) {
      if (near(image.pixelColor(x, y + dy), color)) {
        ++n;
        break;
      }
    }
  }
  return n;
}

// A run of 6 s with one pod of 10 slots, for the smoothing: completions in [2, 3) x 6 and
// in [5, 6) x 3, so the 1-s bins are 0, 0, 6, 0, 0, 3, 0 (bin 6 holds the run's end).
std::string smoothing_run() {
  std::string attempts;
  const double ends[] = {2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 5.1, 5.2, 5.3};
  for (int i = 0; i < 9; ++i) {
    attempts += (i ? "," : "") + QStringLiteral("[%1,1,0,0,%2,0.0,%3,\"completed\"]")
                                     .arg(i)
                                     .arg(i)
                                     .arg(ends[i])
                                     .toStdString();
  }
  return R"({"schema_version":"1.1","run":{"ended_at_s":6.0},"summary":{},
    "scenario":{"worker":{"concurrency":10}},"pods":[{"id":"pod-0"}],
    "timeline":{"pod_states":{"columns":["t_s","pod","state"],"rows":[[0.0,0,"ready"]]},
    "attempts":{"columns":["job","attempt","pod","worker","slot","start_s","end_s","outcome"],
    "rows":[)" +
         attempts + "]}}}";
}

}  // namespace

class ChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void capacityIsDrawn() {
    // Capacity is 2 all along: one change, at 0 s. It used to be a single point, which
    // draws nothing; it is now held to the run's end, drawn over in flight, below the top.
    const Loaded loaded = load_file(kReference);
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    QCOMPARE(view.points(0, QStringLiteral("capacity")),
             (QList<QPointF>{QPointF(0, 2), QPointF(166, 2)}));
    QChartView* cv = view.chart_view(0);
    QChart* chart = cv->chart();
    QAbstractSeries* capacity = series_named(chart, QStringLiteral("capacity"));
    const QImage image = render(view);
    // 30..60 s (in flight is 1 there) and 5..20 s (in flight is 2 too, under capacity).
    for (auto [t0, t1] : {std::pair{30.0, 60.0}, std::pair{5.0, 20.0}}) {
      const QPoint a = pixel_of(cv, &view, QPointF(t0, 2), capacity);
      const QPoint b = pixel_of(cv, &view, QPointF(t1, 2), capacity);
      QCOMPARE(a.y(), b.y());
      const int width = b.x() - a.x();
      // A dash of 10 px every 15 px (Qt's dash of 4 x and gap of 2 x the 2.5 px pen).
      const int seen = columns_with(image, a.x(), b.x(), a.y(), kCapacity);
      QVERIFY2(seen > width / 2, qPrintable(QStringLiteral("%1 of %2").arg(seen).arg(width)));
    }
    // Not at the plot's top: the axis goes to 3 (2 x 1.12 x 1.05 rounded up to a whole job).
    TickAxis* y = axis_of(chart, capacity, Qt::Vertical);
    QCOMPARE(y->max(), 3.0);
    QVERIFY(pixel_of(cv, &view, QPointF(50, 2), capacity).y() >
            cv->mapTo(&view, chart->plotArea().topLeft().toPoint()).y() + 50);
  }

  void legendClickHidesAndShowsASeries() {
    const Loaded loaded = load_file(kReference);
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    QChartView* cv = view.chart_view(0);
    QAbstractSeries* capacity = series_named(cv->chart(), QStringLiteral("capacity"));
    const QList<QLegendMarker*> markers = cv->chart()->legend()->markers(capacity);
    QCOMPARE(markers.size(), 1);
    QLegendMarker* marker = markers[0];
    auto capacity_pixels = [&] {
      const QImage image = render(view);
      const QPoint a = pixel_of(cv, &view, QPointF(30, 2), capacity);
      const QPoint b = pixel_of(cv, &view, QPointF(60, 2), capacity);
      return columns_with(image, a.x(), b.x(), a.y(), kCapacity);
    };
    QVERIFY(capacity_pixels() > 100);
    emit marker->clicked();
    QVERIFY(!capacity->isVisible());
    QVERIFY(marker->isVisible());  // the entry stays, dimmed
    QVERIFY(marker->labelBrush().color().alphaF() < 0.5);
    QCOMPARE(capacity_pixels(), 0);
    emit marker->clicked();
    QVERIFY(capacity->isVisible());
    QCOMPARE(marker->labelBrush().color().alphaF(), 1.0);
    QVERIFY(capacity_pixels() > 100);
    // The deploy's shading and its start line share one entry, which hides both.
    QList<QAbstractSeries*> deploy;
    for (QAbstractSeries* s : cv->chart()->series()) {
      if (s->name() == QStringLiteral("deploy")) deploy << s;
    }
    QCOMPARE(deploy.size(), 2);
    int shown = 0;
    for (QAbstractSeries* s : deploy) {
      for (QLegendMarker* m : cv->chart()->legend()->markers(s)) shown += m->isVisible();
    }
    QCOMPARE(shown, 1);
    emit cv->chart()->legend()->markers(deploy[0])[0]->clicked();
    QVERIFY(!deploy[0]->isVisible());
    QVERIFY(!deploy[1]->isVisible());
    QVERIFY(cv->chart()->legend()->markers(deploy[0])[0]->isVisible());
    QVERIFY(!cv->chart()->legend()->markers(deploy[1])[0]->isVisible());
  }

  void axesTickAtRoundValues() {
    // 0..166 s over a plot 1,100 to 1,490 px wide, ticks at least 90 px apart: the raw
    // step 166 x 90 / width is 10.0 to 13.6 s, so 15 s. In flight / capacity: 0..3 by
    // whole jobs. Completions (10 s average): bins of 0 or 1 job, at most 0.3/s here.
    const Loaded loaded = load_file(kReference);
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    QChart* chart = view.chart_view(0)->chart();
    const double width = chart->plotArea().width();
    QVERIFY2(width > 1100 && width < 1490, qPrintable(QString::number(width)));
    TickAxis* x = axis_of(chart, series_named(chart, QStringLiteral("in flight")), Qt::Horizontal);
    QCOMPARE(x->labels(), (QStringList{"0s", "15s", "30s", "45s", "1m", "1m15s", "1m30s", "1m45s",
                                       "2m", "2m15s", "2m30s", "2m45s"}));
    TickAxis* y = axis_of(chart, series_named(chart, QStringLiteral("in flight")), Qt::Vertical);
    QCOMPARE(y->labels(), (QStringList{"0", "1", "2", "3"}));
    // Every value axis: its ticks are the multiples of one 1-2-5 x 10^n step, and the
    // labels say them shortly.
    const QRegularExpression value_label(QStringLiteral("^-?\\d+(\\.\\d+)?[kMG]?$"));
    for (QAbstractAxis* a : chart->axes(Qt::Vertical)) {
      auto* t = qobject_cast<TickAxis*>(a);
      if (!t) continue;
      const auto& ticks = t->ticks();
      QVERIFY(ticks.size() >= 3);
      const double step = ticks[1].value - ticks[0].value;
      const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
      QVERIFY2(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                   std::abs(mantissa - 5) < 1e-9,
               qPrintable(QString::number(step)));
      QVERIFY(std::abs(ticks.back().value - t->max()) < 1e-9 * t->max());  // the end is labelled
      for (const Tick& tick : ticks) {
        const double k = tick.value / step;
        QVERIFY(std::abs(k - std::round(k)) < 1e-9);
        QVERIFY2(value_label.match(QString::fromStdString(tick.label)).hasMatch(),
                 tick.label.c_str());
      }
    }
  }

  void aLargeQueueGetsItsOwnAxis() {
    // One pod of 10 slots, busy from 1 s, while the queue grows to 5,000 by 100 s (the
    // shape of scenarios/sidekiq-k8s-overloaded.json, whose queue reaches 22k over 100
    // slots). On one axis in flight would use 10 / 5,250 of it.
    std::string rows = "[0.0,0,0,0],[1.0,0,0,10]";
    for (int i = 1; i <= 100; ++i) {
      rows += QStringLiteral(",[%1,%2,0,10]").arg(i + 0.5).arg(i * 50).toStdString();
    }
    const std::string text =
        R"({"schema_version":"1.1","run":{"ended_at_s":100.0},"summary":{},
        "scenario":{"worker":{"concurrency":10}},"pods":[{"id":"pod-0"}],
        "timeline":{"pod_states":{"columns":["t_s","pod","state"],"rows":[[0.0,0,"ready"]]},
        "series":{"columns":["t_s","queued","scheduled","in_flight"],"rows":[)" +
        rows + "]}}}";
    const Loaded loaded = load_text(text, "overloaded.json");
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    QChart* chart = view.chart_view(0)->chart();
    QAbstractSeries* in_flight = series_named(chart, QStringLiteral("in flight"));
    QAbstractSeries* queued = series_named(chart, QStringLiteral("queued"));
    TickAxis* working = axis_of(chart, in_flight, Qt::Vertical);
    TickAxis* waiting = axis_of(chart, queued, Qt::Vertical);
    QVERIFY(working != waiting);
    QCOMPARE(axis_of(chart, series_named(chart, QStringLiteral("capacity")), Qt::Vertical),
             working);
    // In flight (10) and capacity (10) fill most of theirs: 10 x 1.12 (room for the
    // marks) x 1.05 = 11.8 rounds up to 12.
    QCOMPARE(working->max(), 12.0);
    QVERIFY(10 / working->max() > 0.5);
    QVERIFY(5000 / waiting->max() > 0.5 && waiting->max() >= 5000);
    QCOMPARE(waiting->ticks().back().value, waiting->max());
    // And on screen: in flight's line sits more than half way up the plot.
    const QRectF plot = chart->plotArea();
    const QPointF at = chart->mapToPosition(QPointF(50, 10), in_flight);
    QVERIFY((plot.bottom() - at.y()) / plot.height() > 0.5);
  }

  void completionsAreAMovingAverage() {
    // Bins 0, 0, 6, 0, 0, 3, 0 per second. Over 1 s: the bins. Over 5 s: centred on each
    // bin, two either side, fewer at the ends: (0+0+6)/3 = 2, 6/4 = 1.5, 6/5 = 1.2,
    // (0+6+0+0+3)/5 = 1.8, 9/5 = 1.8, 3/4 = 0.75, 3/3 = 1.
    const Loaded loaded = load_text(smoothing_run(), "smoothing.json");
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1200, 700));
    auto& view = static_cast<SeriesView&>(*widget);
    QCOMPARE(view.smoothing(), SeriesView::kDefaultSmoothing);
    auto* choice = view.findChild<QComboBox*>();
    QVERIFY(choice);
    choice->setCurrentIndex(choice->findText(QStringLiteral("1s")));
    QCOMPARE(view.smoothing(), 1.0);
    using P = QPointF;
    const QString line = QStringLiteral("completions/s");
    QCOMPARE(view.points(0, line), (QList<P>{P(0, 0), P(2, 0), P(2, 6), P(3, 6), P(3, 0), P(5, 0),
                                             P(5, 3), P(6, 3), P(6, 0)}));
    choice->setCurrentIndex(choice->findText(QStringLiteral("5s")));
    QCOMPARE(view.smoothing(), 5.0);
    QCOMPARE(view.points(0, line),
             (QList<P>{P(0, 2), P(1, 2), P(1, 1.5), P(2, 1.5), P(2, 1.2), P(3, 1.2), P(3, 1.8),
                       P(5, 1.8), P(5, 0.75), P(6, 0.75), P(6, 1)}));
    // The right axis follows: 2 x 1.12 x 1.05 = 2.35, rounded up by its step (0.5 or 1).
    QChart* chart = view.chart_view(0)->chart();
    TickAxis* rate = axis_of(chart, series_named(chart, line), Qt::Vertical);
    QVERIFY2(rate->max() == 2.5 || rate->max() == 3, qPrintable(QString::number(rate->max())));
    QVERIFY(rate->titleText().contains(QStringLiteral("5s average")));
  }

  void markersAreDrawnWhereTheyHappened() {
    // SIGTERM to pod-0 at 45 s: a TERM mark at the top; the deploy starts at 30 s: a line.
    const Loaded loaded = load_file(kReference);
    auto widget = make_view(ViewKind::kSeries, loaded, QSize(1600, 900));
    auto& view = static_cast<SeriesView&>(*widget);
    QChartView* cv = view.chart_view(0);
    QAbstractSeries* term = series_named(cv->chart(), QStringLiteral("TERM"));
    QCOMPARE(static_cast<QXYSeries*>(term)->points().size(), 1);
    const QPointF mark = static_cast<QXYSeries*>(term)->points()[0];
    QCOMPARE(mark.x(), 45.0);
    const QImage image = render(view);
    const QPoint at = pixel_of(cv, &view, mark, term);
    const QColor term_color = marker_color(MarkerKind::kTerm);
    QVERIFY2(near(image.pixelColor(at), term_color), qPrintable(image.pixelColor(at).name()));
    QVERIFY(!near(image.pixelColor(at + QPoint(20, 0)), term_color));
    QVERIFY(!near(image.pixelColor(at - QPoint(20, 0)), term_color));
    // The deploy's start: its colour down the column at 30 s, dashed, not at 29 s's.
    QAbstractSeries* deploy_line = nullptr;
    for (QAbstractSeries* s : cv->chart()->series()) {
      if (s->name() == QStringLiteral("deploy") && s->type() == QAbstractSeries::SeriesTypeLine) {
        deploy_line = s;
      }
    }
    QVERIFY(deploy_line);
    QColor deploy = deploy_window_color();
    deploy.setAlpha(255);
    auto column = [&](double t) {
      const QPoint top = pixel_of(cv, &view, QPointF(t, 0.8), deploy_line);
      const QPoint bottom = pixel_of(cv, &view, QPointF(t, 0.2), deploy_line);
      int n = 0;
      for (int y = top.y(); y <= bottom.y(); ++y) n += near_x(image, QPoint(top.x(), y), deploy);
      return std::pair{n, bottom.y() - top.y()};
    };
    const auto [on, height] = column(30);
    if (on <= height / 3) {
      const QPoint top = pixel_of(cv, &view, QPointF(30, 0.5), deploy_line);
      for (int dx = -2; dx <= 2; ++dx) qWarning() << dx << image.pixelColor(top + QPoint(dx, 0));
    }
    QVERIFY2(on > height / 3, qPrintable(QStringLiteral("%1 of %2").arg(on).arg(height)));
    QCOMPARE(column(29).first, 0);
  }

  void compareDrawsIntervalsAsErrorBars() {
    // The reference comparison: every seed gives the same outcome, so low = mean = high,
    // e.g. wasted work 65 s for ojs: the bar's cap sits on the bar's top.
    const Loaded loaded = load_file(kDir + QStringLiteral("/one-pod-rollout.compare.json"));
    auto widget = make_view(ViewKind::kCompare, loaded, QSize(1600, 900));
    auto& view = static_cast<CompareView&>(*widget);
    QCOMPARE(view.metric(), QStringLiteral("all"));
    QCOMPARE(view.chart_views().size(), 9);  // one panel per metric
    QCOMPARE(view.bars()[4].first, QStringLiteral("wasted_work_s"));
    QChartView* cv = view.chart_views()[4];
    const QImage image = render(view);
    QAbstractSeries* bars = nullptr;
    for (QAbstractSeries* s : cv->chart()->series()) {
      if (s->type() == QAbstractSeries::SeriesTypeBar) bars = s;
    }
    const QColor dark = CompareView::error_bar_color();
    for (int profile = 0; profile < 3; ++profile) {
      const double mean = view.bars()[4].second[profile];  // 65, 64.501, 70
      // The cap spans 0.08 of a category either side of the bar's centre, at the mean.
      for (double dx : {-0.05, 0.0, 0.05}) {
        const QPoint cap = pixel_of(cv, &view, QPointF(profile + dx, mean), bars);
        QVERIFY2(near(image.pixelColor(cap), dark, 120), qPrintable(image.pixelColor(cap).name()));
        QVERIFY(!near(image.pixelColor(cap + QPoint(0, 6)), dark, 120));  // below: the bar
      }
      // Beside the cap, at 0.15 (the bar is 0.5 wide), only the bar's edge: no cap.
      const QPoint side = pixel_of(cv, &view, QPointF(profile + 0.15, mean), bars);
      for (int dy = -6; dy <= 6; ++dy) {
        QVERIFY(!near(image.pixelColor(side + QPoint(0, dy)), dark, 120));
      }
    }
  }

  void compareGivesEachMetricItsOwnAxis() {
    // Wasted work 3,000 s (95 %: 2,800..3,200) next to drain p99 32 s (30..34): each on its
    // own axis, each bar fills most of it; the error bars end at low and high.
    const std::string text = R"({"scenario":"big","seeds":[1,2,3],
      "metrics":["wasted_work_s","drain_latency_s.p99"],
      "profiles":[{"profile":"ojs","metrics":{
        "wasted_work_s":{"mean":3000,"half_width":200,"low":2800,"high":3200,"n":3},
        "drain_latency_s.p99":{"mean":32,"half_width":2,"low":30,"high":34,"n":3}}}]})";
    const Loaded loaded = load_text(text, "big.compare.json");
    auto widget = make_view(ViewKind::kCompare, loaded, QSize(1000, 500));
    auto& view = static_cast<CompareView&>(*widget);
    QCOMPARE(view.chart_views().size(), 2);
    const QImage image = render(view);
    const QColor dark = CompareView::error_bar_color();
    struct Case {
      int panel;
      double mean, low, high;
    };
    for (const Case& c : {Case{0, 3000, 2800, 3200}, Case{1, 32, 30, 34}}) {
      QChartView* cv = view.chart_views()[c.panel];
      QChart* chart = cv->chart();
      QAbstractSeries* interval = series_named(chart, QStringLiteral("95 % interval"));
      TickAxis* y = axis_of(chart, interval, Qt::Vertical);
      QVERIFY2(c.mean / y->max() > 0.5 && c.high <= y->max(),
               qPrintable(QString::number(y->max())));
      QCOMPARE(y->ticks().back().value, y->max());
      // The line from low to high, and not beyond.
      const QPoint low = pixel_of(cv, &view, QPointF(0, c.low), interval);
      const QPoint high = pixel_of(cv, &view, QPointF(0, c.high), interval);
      QVERIFY(high.y() < low.y());
      const QPoint mid = pixel_of(cv, &view, QPointF(0, (c.mean + c.high) / 2), interval);
      QVERIFY2(near_x(image, mid, dark, 120), qPrintable(image.pixelColor(mid).name()));
      QVERIFY(near_x(image, low, dark, 120));
      QVERIFY(near_x(image, high, dark, 120));
      QVERIFY(!near(image.pixelColor(high - QPoint(0, 5)), dark, 120));
      // The caps: 0.08 of a category either side, at low and high.
      for (double y_value : {c.low, c.high}) {
        const QPoint cap = pixel_of(cv, &view, QPointF(-0.05, y_value), interval);
        QVERIFY(near(image.pixelColor(cap), dark, 120));
      }
      const QRectF plot = chart->plotArea();
      const QPointF top = chart->mapToPosition(QPointF(0, c.mean), interval);
      QVERIFY((plot.bottom() - top.y()) / plot.height() > 0.5);
      // The mean is written just above the interval, in the metric's unit.
      QList<QGraphicsSimpleTextItem*> texts;
      for (QGraphicsItem* item : chart->childItems()) {
        if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item)) texts << t;
      }
      QCOMPARE(texts.size(), 1);
      QCOMPARE(texts[0]->text(), c.panel == 0 ? QStringLiteral("50m") : QStringLiteral("32s"));
      const double text_bottom = texts[0]->pos().y() + texts[0]->boundingRect().height();
      const double high_y = chart->mapToPosition(QPointF(0, c.high), interval).y();
      QVERIFY(text_bottom <= high_y && text_bottom > high_y - 10);
      QVERIFY(texts[0]->pos().y() >= plot.top());
    }
    // Seconds tick like a clock; the 3,000 s axis is in minutes.
    TickAxis* big =
        axis_of(view.chart_views()[0]->chart(),
                series_named(view.chart_views()[0]->chart(), "95 % interval"), Qt::Vertical);
    QCOMPARE(big->kind(), TickKind::kTime);
    QVERIFY2(big->labels().contains(QStringLiteral("50m")) ||
                 big->labels().contains(QStringLiteral("40m")),
             qPrintable(big->labels().join(',')));
  }

  void sweepTicksDurationsLikeAClock() {
    // worker.grace_period 10s, 40s, 1m10s: x from 10 - 1.8 to 70 + 1.8 s (3 % padding).
    // At 1000 px the plot is 570 to 1,140 px wide: raw step 63.6 x 90 / width is 5.0 to
    // 10 s, so 10 s. Wasted work 55..70 s: 70 x 1.05 = 73.5, rounded to a 10 or 15 s step.
    const Loaded loaded = load_file(kDir + QStringLiteral("/one-pod-rollout.sweep.json"));
    auto widget =
        make_view(ViewKind::kSweep, loaded, QSize(1000, 600), QStringLiteral("wasted_work_s"));
    auto& view = static_cast<SweepView&>(*widget);
    QChart* chart = view.chart_views()[0]->chart();
    QAbstractSeries* mean = nullptr;
    for (QAbstractSeries* s : chart->series()) {
      if (s->name().contains(QStringLiteral("mean"))) mean = s;
    }
    QVERIFY(mean);
    TickAxis* x = axis_of(chart, mean, Qt::Horizontal);
    QVERIFY(x->titleText().contains(QStringLiteral("worker.grace_period, duration")));
    const double width = chart->plotArea().width();
    QVERIFY2(width > 570 && width < 1140, qPrintable(QString::number(width)));
    QCOMPARE(x->labels(), (QStringList{"10s", "20s", "30s", "40s", "50s", "1m", "1m10s"}));
    TickAxis* y = axis_of(chart, mean, Qt::Vertical);
    QCOMPARE(y->kind(), TickKind::kTime);
    QVERIFY2(y->max() == 80 || y->max() == 75, qPrintable(QString::number(y->max())));
    QCOMPARE(y->labels().first(), QStringLiteral("0s"));
    QCOMPARE(y->ticks().back().value, y->max());  // the end is labelled
    QVERIFY(y->labels().contains(QStringLiteral("1m")) ||
            y->labels().contains(QStringLiteral("1m15s")));
  }
};

QTEST_MAIN(ChartsTest)
#include "charts_test.moc"
