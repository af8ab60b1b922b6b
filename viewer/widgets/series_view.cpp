#include "widgets/series_view.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include "base/duration.h"
#include "widgets/palette.h"
#include "widgets/tick_axis.h"

namespace drainsim::viewer {

namespace {

// A step function as the corners of its staircase, the last value held until `end`.
QList<QPointF> staircase(const Steps& s, double end) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(s.t.size() * 2 + 1));
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    if (i > 0) out.append(QPointF(s.t[i], s.values[i - 1]));
    out.append(QPointF(s.t[i], s.values[i]));
  }
  if (!s.t.empty() && s.t.back() < end) out.append(QPointF(end, s.values.back()));
  return out;
}

// The bins averaged over `k` bins centred on each (fewer at the ends), as a step function.
Steps moving_average(const Series& s, int k) {
  const std::vector<double>& bins = s.completions_per_s;
  const auto n = static_cast<std::ptrdiff_t>(bins.size());
  const std::ptrdiff_t before = (k - 1) / 2, after = k / 2;
  std::vector<double> prefix(bins.size() + 1, 0);
  for (std::size_t i = 0; i < bins.size(); ++i) prefix[i + 1] = prefix[i] + bins[i];
  Steps out;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, i - before);
    const std::ptrdiff_t hi = std::min(n, i + after + 1);
    const double v = (prefix[hi] - prefix[lo]) / static_cast<double>(hi - lo);
    if (!out.values.empty() && v == out.values.back()) continue;
    out.t.push_back(static_cast<double>(i) * s.bin_s);
    out.values.push_back(v);
  }
  return out;
}

// The least room between two ticks of a value axis, in pixels.
constexpr double kRowPx = 60;

double max_of(const Steps& s) {
  return s.values.empty() ? 0 : *std::max_element(s.values.begin(), s.values.end());
}

const QColor kQueued(0x1f, 0x77, 0xb4), kInFlight(0xff, 0x7f, 0x0e), kBackoff(0x7f, 0x7f, 0x7f),
    kCapacity(0x2c, 0xa0, 0x2c), kCompletions(0x94, 0x67, 0xbd);

// Where the marks of each kind sit on the 0..1 marker axis: rows along the plot's top,
// above the lines, which the value axes keep below 1 / (kMarkRoom x 1.05) = 85 % of it.
constexpr double kMarkRoom = 1.12;

double mark_row(MarkerKind k) {
  return k == MarkerKind::kTerm ? 0.975 : k == MarkerKind::kKill ? 0.94 : 0.905;
}

// A secondary axis: in its line's colour, with no grid of its own (the left axis's).
void color_axis(QAbstractAxis* axis, const QColor& c) {
  axis->setGridLineVisible(false);
  axis->setLabelsColor(c);
  axis->setTitleBrush(c);
  axis->setLinePenColor(c);
}

}  // namespace

// One run's chart; re-samples its lines when the time axis changes.
class SeriesChart : public QChartView {
 public:
  SeriesChart(std::shared_ptr<const Results> run, double smoothing, QWidget* parent = nullptr)
      : QChartView(parent), run_(std::move(run)) {
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::HorizontalRubberBand);
    auto* chart = new QChart();
    chart->setTitle(
        QStringLiteral("%1 — scenario %2, seed %3")
            .arg(QString::fromStdString(run_->path), QString::fromStdString(run_->scenario_name))
            .arg(run_->seed));
    setChart(chart);
    const Series& s = run_->series;
    end_ = std::max(run_->ended_at, 1e-3);

    x_ = new TickAxis(TickKind::kTime, 90);
    x_->setTitleText(QStringLiteral("time"));
    x_->setRange(0, end_);
    // Jobs in flight and capacity on the left; the waiting jobs with them unless they
    // would flatten them (more than twice their top), then on an axis of their own.
    const double working = std::max({max_of(s.in_flight), max_of(s.capacity), 1.0});
    const bool queued_apart = max_of(s.queued) > 2 * working;
    const bool backoff_apart = max_of(s.scheduled) > 2 * working;
    y_ = new TickAxis(TickKind::kCount, kRowPx);
    y_->setTitleText(QStringLiteral("in flight, capacity") +
                     (queued_apart ? QString() : QStringLiteral(", queued")) +
                     (backoff_apart ? QString() : QStringLiteral(", backoff")));
    if (queued_apart || backoff_apart) {
      waiting_ = new TickAxis(TickKind::kCount, kRowPx);
      waiting_->setTitleText(queued_apart && backoff_apart ? QStringLiteral("queued, backoff")
                             : queued_apart                ? QStringLiteral("queued")
                                                           : QStringLiteral("retry backoff"));
      color_axis(waiting_, queued_apart ? kQueued : kBackoff);
    }
    rate_ = new TickAxis(TickKind::kValue, kRowPx);
    color_axis(rate_, kCompletions);
    marks_ = new QValueAxis();  // 0..1: windows, deploy starts and markers, whatever the scale
    marks_->setRange(0, 1);
    marks_->setVisible(false);
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    if (waiting_) chart->addAxis(waiting_, Qt::AlignLeft);
    chart->addAxis(rate_, Qt::AlignRight);
    chart->addAxis(marks_, Qt::AlignLeft);

    // Windows first, so the lines are drawn over them; each deploy's start as a line.
    for (const Window& w : run_->windows) {
      auto* upper = new QLineSeries();
      auto* lower = new QLineSeries();
      const double end = std::max(w.end, w.start + end_ / 500);
      upper->append(w.start, 1);
      upper->append(end, 1);
      lower->append(w.start, 0);
      lower->append(end, 0);
      auto* area = new QAreaSeries(upper, lower);
      area->setName(w.deploy ? QStringLiteral("deploy") : QStringLiteral("chaos"));
      area->setColor(w.deploy ? deploy_window_color() : chaos_window_color());
      area->setBorderColor(Qt::transparent);
      add(area, marks_);
    }
    for (const Window& w : run_->windows) {
      if (!w.deploy) continue;
      auto* start = new QLineSeries();
      start->setName(QStringLiteral("deploy"));
      QColor c = deploy_window_color();
      c.setAlpha(255);
      start->setPen(QPen(c, 1.5, Qt::DashLine));
      start->append(w.start, 0);
      start->append(w.start, 1);
      add(start, marks_);
    }
    add_line(&s.queued, QStringLiteral("queued"), kQueued, Qt::SolidLine, 1.5,
             queued_apart ? waiting_ : y_);
    add_line(&s.scheduled, QStringLiteral("retry backoff"), kBackoff, Qt::DotLine, 1.5,
             backoff_apart ? waiting_ : y_);
    add_line(&s.in_flight, QStringLiteral("in flight"), kInFlight, Qt::SolidLine, 1.5, y_);
    // Capacity over in flight (they meet when the fleet is saturated), dashed and wider.
    add_line(&s.capacity, QStringLiteral("capacity"), kCapacity, Qt::DashLine, 2.5, y_);
    add_line(&completions_, QStringLiteral("completions/s"), kCompletions, Qt::SolidLine, 1.5,
             rate_);
    add_markers();
    // Several series share a name (the deploy windows and starts): one legend entry each.
    for (QLegendMarker* m : chart->legend()->markers()) {
      if (owner(m->series()->name()) != m->series()) m->setVisible(false);
      connect(m, &QLegendMarker::clicked, this, [this, m] { toggle(m->series()->name()); });
    }

    set_smoothing(smoothing);  // fits the value axes and samples the lines
    connect(x_, &QValueAxis::rangeChanged, this, [this] { resample(); });
    connect(chart, &QChart::plotAreaChanged, this, [this](const QRectF& r) {
      x_->set_length(r.width());
      for (TickAxis* a : {y_, waiting_, rate_}) {
        if (a) a->set_length(r.height());  // and re-fits its round range
      }
    });
  }

  void zoom_time(double t0, double t1) { x_->setRange(t0, t1); }

  void set_smoothing(double seconds) {
    const int k = std::max(1, static_cast<int>(std::lround(seconds / run_->series.bin_s)));
    completions_ = moving_average(run_->series, k);
    rate_->setTitleText(QStringLiteral("completions / s (%1 average)")
                            .arg(QString::fromStdString(format_seconds(k * run_->series.bin_s))));
    fit_value_axes();
    resample();
  }

  // Points currently drawn by the line named `name`.
  QList<QPointF> points(const QString& name) const {
    for (const Line& l : lines_) {
      if (l.series->name() == name) return l.series->points();
    }
    return {};
  }

 protected:
  void resizeEvent(QResizeEvent* e) override {
    QChartView::resizeEvent(e);
    resample();
  }

  // Right click zooms the time axis out (twice the span, within the run); the value axes
  // keep their round ranges.
  void mouseReleaseEvent(QMouseEvent* e) override {
    if (e->button() != Qt::RightButton) return QChartView::mouseReleaseEvent(e);
    const double span = std::min(end_, 2 * (x_->max() - x_->min()));
    const double t0 = std::clamp((x_->min() + x_->max() - span) / 2, 0.0, end_ - span);
    x_->setRange(t0, t0 + span);
    e->accept();
  }

 private:
  struct Line {
    const Steps* steps;
    QLineSeries* series;
  };

  void add(QAbstractSeries* series, QAbstractAxis* y) {
    chart()->addSeries(series);
    series->attachAxis(x_);
    series->attachAxis(y);
    by_name_[series->name()].push_back(series);
  }

  void add_line(const Steps* steps, const QString& name, const QColor& color, Qt::PenStyle style,
                double width, TickAxis* y) {
    auto* series = new QLineSeries();
    series->setName(name);
    series->setPen(QPen(color, width, style));
    add(series, y);
    lines_.push_back({steps, series});
  }

  // TERM, KILL and OOM marks along the top, one per distinct time and kind.
  void add_markers() {
    struct Kind {
      MarkerKind kind;
      QScatterSeries::MarkerShape shape;
    };
    for (const Kind k : {Kind{MarkerKind::kTerm, QScatterSeries::MarkerShapeTriangle},
                         Kind{MarkerKind::kKill, QScatterSeries::MarkerShapeRectangle},
                         Kind{MarkerKind::kOom, QScatterSeries::MarkerShapeRotatedRectangle}}) {
      std::vector<double> times;
      for (const Lane& lane : run_->lanes) {
        for (const Marker& m : lane.markers) {
          if (m.kind == k.kind) times.push_back(m.t);
        }
      }
      if (times.empty()) continue;
      std::sort(times.begin(), times.end());
      times.erase(std::unique(times.begin(), times.end()), times.end());
      auto* marks = new QScatterSeries();
      marks->setName(QString::fromLatin1(to_string(k.kind)));
      marks->setMarkerShape(k.shape);
      marks->setMarkerSize(9);
      marks->setColor(marker_color(k.kind));
      marks->setBorderColor(marker_color(k.kind));
      for (double t : times) marks->append(t, mark_row(k.kind));
      add(marks, marks_);
    }
  }

  QAbstractSeries* owner(const QString& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() || it->second.empty() ? nullptr : it->second.front();
  }

  // Hides or shows every series named `name`; its legend entry stays, dimmed when hidden.
  void toggle(const QString& name) {
    QAbstractSeries* first = owner(name);
    if (!first) return;
    const bool show = !first->isVisible();
    for (QAbstractSeries* s : by_name_[name]) s->setVisible(show);
    for (QAbstractSeries* s : by_name_[name]) {
      for (QLegendMarker* m : chart()->legend()->markers(s)) {
        m->setVisible(s == first);
        const double alpha = show ? 1.0 : 0.35;
        QBrush label = m->labelBrush();
        QColor c = label.color();
        c.setAlphaF(alpha);
        label.setColor(c);
        m->setLabelBrush(label);
        QBrush brush = m->brush();
        c = brush.color();
        c.setAlphaF(alpha);
        brush.setColor(c);
        m->setBrush(brush);
        QPen pen = m->pen();
        c = pen.color();
        c.setAlphaF(alpha);
        pen.setColor(c);
        m->setPen(pen);
      }
    }
  }

  // Round ranges from 0 over the whole run, for the axes' current lengths, with room for
  // the marks along the top.
  void fit_value_axes() {
    auto top = [this](TickAxis* axis) {
      double m = 0;
      for (const Line& l : lines_) {
        if (chart()->axes(Qt::Vertical, l.series).contains(axis)) m = std::max(m, max_of(*l.steps));
      }
      return m;
    };
    for (TickAxis* a : {y_, waiting_, rate_}) {
      if (a) a->fit(0, std::max(top(a), 1.0) * kMarkRoom);
    }
  }

  void resample() {
    const int buckets = std::max(100, static_cast<int>(chart()->plotArea().width()));
    const double end = std::min(x_->max(), end_);
    for (Line& l : lines_) {
      l.series->replace(staircase(downsample(*l.steps, x_->min(), x_->max(), buckets), end));
    }
  }

  std::shared_ptr<const Results> run_;
  double end_ = 1;
  Steps completions_;
  TickAxis *x_, *y_, *waiting_ = nullptr, *rate_;
  QValueAxis* marks_;
  std::vector<Line> lines_;
  std::map<QString, std::vector<QAbstractSeries*>> by_name_;
};

SeriesView::SeriesView(QWidget* parent)
    : QWidget(parent),
      controls_(new QWidget()),
      smoothing_(new QComboBox()),
      charts_layout_(new QVBoxLayout()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout(controls_);
  bar->setContentsMargins(6, 4, 6, 0);
  bar->addWidget(new QLabel(QStringLiteral("completions/s averaged over")));
  for (double s : kSmoothingChoices) {
    smoothing_->addItem(QString::fromStdString(format_seconds(s)), s);
  }
  smoothing_->setCurrentIndex(smoothing_->findData(kDefaultSmoothing));
  bar->addWidget(smoothing_);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(
      QStringLiteral("Click a legend entry to hide or show it; drag to zoom, right click to zoom "
                     "out.")));
  bar->addStretch(1);
  layout->addWidget(controls_);
  charts_layout_->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(charts_layout_, 1);
  connect(smoothing_, &QComboBox::currentIndexChanged, this, [this] {
    for (SeriesChart* c : charts_) c->set_smoothing(smoothing());
  });
}

void SeriesView::set_picture(bool on) { controls_->setVisible(!on); }

void SeriesView::zoom_time(double t0, double t1) {
  for (SeriesChart* c : charts_) c->zoom_time(t0, t1);
}

void SeriesView::set_smoothing(double seconds) {
  const int i = smoothing_->findData(seconds);
  if (i >= 0) smoothing_->setCurrentIndex(i);
}

double SeriesView::smoothing() const { return smoothing_->currentData().toDouble(); }

QList<QPointF> SeriesView::points(std::size_t chart, const QString& line) const {
  return chart < charts_.size() ? charts_[chart]->points(line) : QList<QPointF>{};
}

QChartView* SeriesView::chart_view(std::size_t i) const {
  return i < charts_.size() ? charts_[i] : nullptr;
}

void SeriesView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
  while (QLayoutItem* item = charts_layout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  charts_.clear();
  for (const auto& r : runs) {
    if (!r->timeline_missing.empty()) {
      auto* label = new QLabel(QStringLiteral("%1: %2").arg(
          QString::fromStdString(r->path), QString::fromStdString(r->timeline_missing)));
      label->setAlignment(Qt::AlignCenter);
      charts_layout_->addWidget(label);
      continue;
    }
    auto* chart = new SeriesChart(r, smoothing(), this);
    charts_.push_back(chart);
    charts_layout_->addWidget(chart);
  }
  if (runs.empty()) {
    auto* label = new QLabel(QStringLiteral("Open a results file written with --timeline."));
    label->setAlignment(Qt::AlignCenter);
    charts_layout_->addWidget(label);
  }
}

}  // namespace drainsim::viewer
