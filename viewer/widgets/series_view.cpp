#include "widgets/series_view.h"

#include <algorithm>

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include "widgets/palette.h"

namespace drainsim::viewer {

namespace {

// A step function as the corners of its staircase.
QList<QPointF> staircase(const Steps& s) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(s.t.size() * 2));
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    if (i > 0) out.append(QPointF(s.t[i], s.values[i - 1]));
    out.append(QPointF(s.t[i], s.values[i]));
  }
  return out;
}

Steps bins_as_steps(const Series& s) {
  Steps out;
  for (std::size_t i = 0; i < s.completions_per_s.size(); ++i) {
    if (i > 0 && s.completions_per_s[i] == s.completions_per_s[i - 1]) continue;
    out.t.push_back(static_cast<double>(i) * s.bin_s);
    out.values.push_back(s.completions_per_s[i]);
  }
  return out;
}

double max_of(const Steps& s) {
  return s.values.empty() ? 0 : *std::max_element(s.values.begin(), s.values.end());
}

}  // namespace

// One run's chart; re-samples its lines when the time axis changes.
class SeriesChart : public QChartView {
 public:
  explicit SeriesChart(std::shared_ptr<const Results> run, QWidget* parent = nullptr)
      : QChartView(parent), run_(std::move(run)) {
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::HorizontalRubberBand);
    auto* chart = new QChart();
    chart->setTitle(
        QStringLiteral("%1 — scenario %2, seed %3")
            .arg(QString::fromStdString(run_->path), QString::fromStdString(run_->scenario_name))
            .arg(run_->seed));
    setChart(chart);
    x_ = new QValueAxis();
    x_->setTitleText(QStringLiteral("time (s)"));
    x_->setLabelFormat(QStringLiteral("%.0f"));
    y_ = new QValueAxis();
    y_->setTitleText(QStringLiteral("jobs"));
    y_->setLabelFormat(QStringLiteral("%.0f"));
    rate_ = new QValueAxis();
    rate_->setTitleText(QStringLiteral("completions / s"));
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    chart->addAxis(rate_, Qt::AlignRight);

    const Series& s = run_->series;
    completions_ = bins_as_steps(s);
    const double ymax = std::max({max_of(s.queued), max_of(s.in_flight), max_of(s.scheduled),
                                  max_of(s.capacity), 1.0}) *
                        1.05;
    y_->setRange(0, ymax);
    y_->applyNiceNumbers();
    rate_->setRange(0, std::max(1.0, max_of(completions_) * 1.05));
    rate_->applyNiceNumbers();

    // Windows first, so the lines are drawn over them.
    bool deploy_named = false, chaos_named = false;
    for (const Window& w : run_->windows) {
      auto* upper = new QLineSeries();
      auto* lower = new QLineSeries();
      const double end = std::max(w.end, w.start + run_->ended_at / 500);
      upper->append(w.start, y_->max());
      upper->append(end, y_->max());
      lower->append(w.start, 0);
      lower->append(end, 0);
      auto* area = new QAreaSeries(upper, lower);
      area->setName(w.deploy ? QStringLiteral("deploy") : QStringLiteral("chaos"));
      area->setColor(w.deploy ? deploy_window_color() : chaos_window_color());
      area->setBorderColor(Qt::transparent);
      chart->addSeries(area);
      area->attachAxis(x_);
      area->attachAxis(y_);
      bool& named = w.deploy ? deploy_named : chaos_named;
      const auto markers = chart->legend()->markers(area);
      if (named && !markers.isEmpty()) markers.first()->setVisible(false);
      named = true;
    }
    add_line(&s.queued, QStringLiteral("queued"), QColor(0x1f, 0x77, 0xb4), Qt::SolidLine, y_);
    add_line(&s.in_flight, QStringLiteral("in flight"), QColor(0xff, 0x7f, 0x0e), Qt::SolidLine,
             y_);
    add_line(&s.scheduled, QStringLiteral("retry backoff"), QColor(0x7f, 0x7f, 0x7f), Qt::DotLine,
             y_);
    add_line(&s.capacity, QStringLiteral("capacity"), QColor(0x2c, 0xa0, 0x2c), Qt::DashLine, y_);
    add_line(&completions_, QStringLiteral("completions/s"), QColor(0x94, 0x67, 0xbd),
             Qt::SolidLine, rate_);
    x_->setRange(0, std::max(run_->ended_at, 1e-3));
    resample();
    connect(x_, &QValueAxis::rangeChanged, this, [this] { resample(); });
  }

  void zoom_time(double t0, double t1) { x_->setRange(t0, t1); }

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

 private:
  struct Line {
    const Steps* steps;
    QLineSeries* series;
  };

  void add_line(const Steps* steps, const QString& name, const QColor& color, Qt::PenStyle style,
                QValueAxis* y) {
    auto* series = new QLineSeries();
    series->setName(name);
    series->setPen(QPen(color, 1.5, style));
    chart()->addSeries(series);
    series->attachAxis(x_);
    series->attachAxis(y);
    lines_.push_back({steps, series});
  }

  void resample() {
    const int buckets = std::max(100, static_cast<int>(chart()->plotArea().width()));
    for (Line& l : lines_) {
      l.series->replace(staircase(downsample(*l.steps, x_->min(), x_->max(), buckets)));
    }
  }

  std::shared_ptr<const Results> run_;
  Steps completions_;
  QValueAxis *x_, *y_, *rate_;
  std::vector<Line> lines_;
};

SeriesView::SeriesView(QWidget* parent) : QWidget(parent), layout_(new QVBoxLayout(this)) {
  layout_->setContentsMargins(0, 0, 0, 0);
}

void SeriesView::zoom_time(double t0, double t1) {
  for (SeriesChart* c : charts_) c->zoom_time(t0, t1);
}

QList<QPointF> SeriesView::points(std::size_t chart, const QString& line) const {
  return chart < charts_.size() ? charts_[chart]->points(line) : QList<QPointF>{};
}

void SeriesView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
  while (QLayoutItem* item = layout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  charts_.clear();
  for (const auto& r : runs) {
    if (!r->timeline_missing.empty()) {
      auto* label = new QLabel(QStringLiteral("%1: %2").arg(
          QString::fromStdString(r->path), QString::fromStdString(r->timeline_missing)));
      label->setAlignment(Qt::AlignCenter);
      layout_->addWidget(label);
      continue;
    }
    auto* chart = new SeriesChart(r, this);
    charts_.push_back(chart);
    layout_->addWidget(chart);
  }
  if (runs.empty()) {
    auto* label = new QLabel(QStringLiteral("Open a results file written with --timeline."));
    label->setAlignment(Qt::AlignCenter);
    layout_->addWidget(label);
  }
}

}  // namespace drainsim::viewer
