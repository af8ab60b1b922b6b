#include "widgets/timeline_view.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include "base/duration.h"
#include "widgets/axis_ticks.h"
#include "widgets/marker_labels.h"
#include "widgets/palette.h"
#include "widgets/summary_metrics.h"
#include "widgets/timeline_legend.h"

namespace drainsim::viewer {

namespace {

QString marker_text(const Marker& m) {
  return QString::fromLatin1(to_string(m.kind)) + (m.delivered ? "" : " (swallowed)");
}

QString seconds(double t) { return QString::fromStdString(format_seconds(t)); }

std::optional<double> summary_number(const Results& run, std::string_view key) {
  for (const SummaryRow& r : run.summary) {
    if (r.key == key) return r.number;
  }
  return std::nullopt;
}

// Where a figure came from, by class of cause (3.3 on), when more than no event: "OOM kills
// 3, deploys 1"; empty when the file does not say.
QString by_class(const Results& run, std::string_view figure) {
  const std::string prefix = std::string(figure) + "_by_cause.";
  QStringList parts;
  for (const SummaryRow& r : run.summary) {
    if (r.key.rfind(prefix, 0) != 0 || !r.number || *r.number == 0) continue;
    const std::string label = metric_info(r.key).label;  // "Job loss: OOM kills"
    parts << QStringLiteral("%1 %2")
                 .arg(QString::fromStdString(label.substr(label.find(": ") + 2)))
                 .arg(*r.number);
  }
  return parts.join(QStringLiteral(", "));
}

QString pod_label(const Lane& lane) {
  if (lane.generation == 0) return QString::fromStdString(lane.id);
  return QStringLiteral("%1 · rollout %2")
      .arg(QString::fromStdString(lane.id))
      .arg(lane.generation);
}

// created → gone (or "running at the end"), e.g. "pod-106 (rollout 1): 10m → 21m2s".
QString pod_life(const Lane& lane) {
  QString text = QStringLiteral("%1: %2 → %3")
                     .arg(pod_label(lane), seconds(lane.created),
                          lane.gone ? seconds(*lane.gone) : QStringLiteral("the end"));
  if (lane.deleted) text += QStringLiteral(" (deleted %1)").arg(seconds(*lane.deleted));
  return text;
}

constexpr QColor kLabelBacking(0xff, 0xff, 0xff, 210);

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), scroll_bar_(new QScrollBar(Qt::Vertical, this)) {
  setMouseTracking(true);
  setMinimumSize(400, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
  scroll_bar_->hide();
  connect(scroll_bar_, &QScrollBar::valueChanged, this, [this](int v) {
    layout_.set_scroll(v);
    update();
  });
  layout_.set_size(width(), height());
}

void TimelineView::set_runs(std::vector<std::shared_ptr<const Results>> runs) {
  // A zoomed view stays zoomed when its files are read again.
  const bool zoomed = !runs_.empty() && (layout_.t0() > 0 || layout_.t1() < full_end_);
  const double t0 = layout_.t0(), t1 = layout_.t1();
  runs_ = std::move(runs);
  std::vector<const Results*> raw;
  full_end_ = 1;
  int pods = 0;
  for (const auto& r : runs_) {
    if (!r->timeline_missing.empty()) continue;
    raw.push_back(r.get());
    full_end_ = std::max(full_end_, r->ended_at);
    pods += static_cast<int>(r->lanes.size());
  }
  layout_.set_runs(std::move(raw), forced_mode_.value_or(default_row_mode(pods)));
  layout_.set_range(0, full_end_);
  if (zoomed) set_range(t0, t1);
  sync_scroll_bar();
  update();
}

void TimelineView::set_row_mode(std::optional<RowMode> mode) {
  forced_mode_ = mode;
  set_runs(runs_);
}

void TimelineView::set_scrollable(bool on) {
  layout_.set_scrollable(on);
  sync_scroll_bar();
  update();
}

void TimelineView::sync_scroll_bar() {
  const TimelineLayout& L = layout_;
  scroll_bar_->setVisible(L.max_scroll() > 0);
  scroll_bar_->setGeometry(L.width() - TimelineLayout::kScrollBarWidth, L.rows_top(),
                           TimelineLayout::kScrollBarWidth, L.rows_bottom() - L.rows_top());
  const QSignalBlocker quiet(scroll_bar_);
  scroll_bar_->setRange(0, L.max_scroll());
  scroll_bar_->setPageStep(L.rows_bottom() - L.rows_top());
  scroll_bar_->setSingleStep(TimelineLayout::kMinLaneHeight);
  scroll_bar_->setValue(L.scroll());
}

void TimelineView::set_range(double t0, double t1) {
  double span = std::clamp(t1 - t0, 1e-3, full_end_);
  t0 = std::clamp(t0, 0.0, full_end_ - span);
  layout_.set_range(t0, t0 + span);
  update();
}

void TimelineView::zoom(double factor, double anchor_t) {
  const double t0 = layout_.t0(), t1 = layout_.t1();
  set_range(anchor_t - (anchor_t - t0) / factor, anchor_t + (t1 - anchor_t) / factor);
}

void TimelineView::pan_pixels(double dx) {
  const double dt =
      dx * (layout_.t1() - layout_.t0()) / (layout_.plot_right() - layout_.plot_left());
  set_range(layout_.t0() - dt, layout_.t1() - dt);
}

void TimelineView::resizeEvent(QResizeEvent*) {
  layout_.set_size(width(), height());
  sync_scroll_bar();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p);
}

void TimelineView::paint(QPainter& p) const {
  const TimelineLayout& L = layout_;
  label_rects_.clear();
  captions_.clear();
  p.fillRect(QRect(0, 0, L.width(), L.height()), background_color());
  QFont small = p.font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() - 2));
  if (L.runs().empty()) {
    p.setPen(Qt::black);
    QString why = QStringLiteral("Nothing to show: open a results file written with --timeline.");
    for (const auto& r : runs_) {
      why += QStringLiteral("\n%1: %2")
                 .arg(QString::fromStdString(r->path), QString::fromStdString(r->timeline_missing));
    }
    p.drawText(QRect(0, 0, L.width(), L.height()), Qt::AlignCenter, why);
    return;
  }
  const int left = L.plot_left(), right = L.plot_right();
  auto clamp_x = [&](double x) { return std::clamp(x, double(left), double(right)); };

  // Time axis: round, clock-like steps (axis_ticks.h).
  p.setPen(QColor(0x60, 0x60, 0x60));
  p.setFont(small);
  const int last_y = L.lanes().empty() ? L.height()
                                       : std::min(L.height() - TimelineLayout::kLegendHeight,
                                                  L.lanes().back().bottom);
  for (const Tick& tick : axis_ticks(TickKind::kTime, L.t0(), L.t1(), right - left, 90)) {
    const int x = static_cast<int>(std::lround(L.x_of(tick.value)));
    p.setPen(QColor(0xe8, 0xe8, 0xe8));
    p.drawLine(x, TimelineLayout::kAxisHeight - 4, x, last_y);
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.drawText(QRect(x - 40, 4, 80, TimelineLayout::kAxisHeight - 8), Qt::AlignCenter,
               QString::fromStdString(tick.label));
  }

  // The rows scroll between the time axis and the legend.
  const QRect rows_area(0, L.rows_top(), L.width(), L.rows_bottom() - L.rows_top());
  for (int r = 0; r < static_cast<int>(L.runs().size()); ++r) {
    const Results& run = *L.runs()[r];
    p.setClipRect(rows_area);
    // Run header: what the run is, then its figures in bold.
    p.setPen(Qt::black);
    const QString what =
        QStringLiteral("%1  (scenario %2, seed %3, profile %4%5)")
            .arg(QString::fromStdString(run.path), QString::fromStdString(run.scenario_name))
            .arg(run.seed)
            .arg(QString::fromStdString(run.profile),
                 L.row_mode() == RowMode::kReplica
                     ? QStringLiteral("; a row per replica, replacement pods continue it")
                     : QString());
    const QString numbers = figures(run);
    const QRect header(4, L.run_headers()[r], L.width() - 8, TimelineLayout::kRunHeader);
    p.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, what);
    if (!numbers.isEmpty()) {
      const QFont plain = p.font();
      QFont bold = plain;
      bold.setBold(true);
      p.setFont(bold);
      const int x = header.left() + QFontMetrics(plain).horizontalAdvance(what) + 24;
      p.drawText(QRect(x, header.top(), std::max(0, header.right() - x), header.height()),
                 Qt::AlignLeft | Qt::AlignVCenter, numbers);
      p.setFont(plain);
    }
    captions_.push_back(numbers.isEmpty() ? what : what + QStringLiteral("  ") + numbers);
    // Deploy and chaos windows behind the run's rows.
    int top = L.height(), bottom = 0;
    for (const LaneGeometry& g : L.lanes()) {
      if (g.run != r) continue;
      top = std::min(top, g.top);
      bottom = std::max(bottom, g.bottom);
    }
    for (const Window& w : run.windows) {
      if (w.end < L.t0() || w.start > L.t1()) continue;
      const double x0 = clamp_x(L.x_of(w.start)), x1 = clamp_x(L.x_of(w.end));
      p.fillRect(QRectF(x0, top, std::max(2.0, x1 - x0), bottom - top),
                 w.deploy ? deploy_window_color() : chaos_window_color());
    }
  }
  p.setClipping(false);

  p.setFont(small);
  const int label_height = QFontMetrics(small).height();
  int next_label_y = 0;
  for (const LaneGeometry& g : L.lanes()) {
    if (g.bottom <= L.rows_top()) continue;  // scrolled above
    if (g.top >= L.rows_bottom()) break;     // below the picture
    // Label, when there is room for it.
    if (g.top >= next_label_y && g.top >= L.rows_top() - 2) {
      p.setPen(Qt::black);
      const QRect box(4, g.top - 2, left - 8, label_height);
      p.drawText(box, Qt::AlignLeft | Qt::AlignTop,
                 p.fontMetrics().elidedText(row_label(g), Qt::ElideRight, box.width()));
      next_label_y = g.top + label_height;
    }
    paint_row(p, g);
  }
  p.setClipping(false);
  state_legend_ = paint_timeline_legend(p, layout_);
}

QString TimelineView::figures(const Results& run) {
  QStringList parts;
  auto readable = [](std::string_view key, double v) {
    return QString::fromStdString(format_value(metric_info(key), v));
  };
  if (const auto loss = summary_number(run, "job_loss")) {
    const QString causes = by_class(run, "job_loss");
    parts << QStringLiteral("job loss %1%2")
                 .arg(*loss)
                 .arg(causes.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(causes));
  }
  if (const auto jobs = summary_number(run, "interrupted_jobs")) {
    QStringList about;
    if (const auto f = summary_number(run, "interrupted_fraction")) {
      about << readable("interrupted_fraction", *f);
    }
    if (const QString causes = by_class(run, "interrupted"); !causes.isEmpty()) about << causes;
    parts << QStringLiteral("interrupted %1%2")
                 .arg(*jobs)
                 .arg(about.isEmpty()
                          ? QString()
                          : QStringLiteral(" (%1)").arg(about.join(QStringLiteral("; "))));
  }
  if (const auto p99 = summary_number(run, "drain_latency_s.p99")) {
    parts << QStringLiteral("drain p99 %1").arg(readable("drain_latency_s.p99", *p99));
  }
  if (const auto longest = summary_number(run, "deploy_duration_s.max")) {
    parts << QStringLiteral("longest deploy %1").arg(readable("deploy_duration_s.max", *longest));
  }
  return parts.join(QStringLiteral(" · "));
}

QString TimelineView::row_label(const LaneGeometry& g) const {
  const Results& run = *layout_.runs()[g.run];
  const ReplicaRow& row = layout_.rows(g.run)[g.row];
  if (layout_.row_mode() == RowMode::kPod) return pod_label(run.lanes[g.lane]);
  // The pod that holds the row at the left edge of the visible range.
  const RowPod* at = row.owner_at(std::max(layout_.t0(), row.pods.front().from));
  if (!at) at = &row.pods.back();
  return QStringLiteral("replica %1 · %2")
      .arg(g.row)
      .arg(QString::fromStdString(run.lanes[at->lane].id));
}

void TimelineView::paint_row(QPainter& p, const LaneGeometry& g) const {
  const TimelineLayout& L = layout_;
  const int left = L.plot_left(), right = L.plot_right();
  auto clamp_x = [&](double x) { return std::clamp(x, double(left), double(right)); };
  const Results& run = *L.runs()[g.run];
  const ReplicaRow& row = L.rows(g.run)[g.row];
  const QRect visible =
      QRect(left, g.top, right - left, g.bottom - g.top)
          .intersected(QRect(0, L.rows_top(), L.width(), L.rows_bottom() - L.rows_top()));
  if (visible.isEmpty()) return;
  const int band_h = g.band_height >= 6 ? g.band_height - 2 : g.band_height;
  const int h = g.row_height >= 4 ? g.row_height - 1 : g.row_height;
  auto x_span = [&](double t0, double t1) {
    const int x0 = static_cast<int>(std::lround(clamp_x(L.x_of(t0))));
    const int x1 = static_cast<int>(std::lround(clamp_x(L.x_of(t1))));
    return std::pair(x0, x1);
  };
  auto paint_bands = [&](const Lane& lane, int y, int height) {
    for (const Band& b : lane.bands) {
      if (b.end < L.t0() || b.start > L.t1()) continue;
      const int x0 = static_cast<int>(std::floor(clamp_x(L.x_of(b.start))));
      const int x1 = static_cast<int>(std::ceil(clamp_x(L.x_of(b.end))));
      p.fillRect(QRect(x0, y, std::max(1, x1 - x0), height), state_color(b.state));
    }
  };
  for (const RowPod& pod : row.pods) {
    const Lane& lane = run.lanes[pod.lane];
    // The surge strip: the pod before it owns the row, its states with its attempts on top.
    if (g.strip_height > 0 && pod.created < pod.from) {
      const auto [x0, x1] = x_span(pod.created, pod.from);
      p.setClipRect(QRect(x0, g.strip_top, x1 - x0, g.strip_height).intersected(visible));
      paint_bands(lane, g.strip_top, g.strip_height);
      for (const Track& track : lane.tracks) paint_track(p, track, g.strip_top, g.strip_height);
    }
    // The main part: the band strip and the tracks, while the pod owns the row.
    const auto [x0, x1] = x_span(pod.from, pod.to);
    const QRect part =
        QRect(x0, g.top, std::max(0, x1 - x0) + (pod.to >= L.t1() ? 1 : 0), g.bottom - g.top)
            .intersected(visible);
    if (part.isEmpty()) continue;
    p.setClipRect(part);
    paint_bands(lane, g.band_top, band_h);
    // preStop span: hatched over the band strip.
    if (lane.prestop) {
      const double px0 = clamp_x(L.x_of(lane.prestop->start)),
                   px1 = clamp_x(L.x_of(lane.prestop->end));
      p.fillRect(QRectF(px0, g.band_top, std::max(1.0, px1 - px0), band_h),
                 QBrush(prestop_color(), Qt::BDiagPattern));
    }
    // Attempts: a row per slot, or all slots in one row with the attempts that did not
    // simply complete drawn again on top, at least 2 px wide.
    for (const Track& track : lane.tracks) {
      const auto k = std::find(row.used_slots.begin(), row.used_slots.end(), track.slot) -
                     row.used_slots.begin();
      const int y = g.tracks_top + (L.merged_slots() ? 0 : static_cast<int>(k) * g.row_height);
      paint_track(p, track, y, h);
    }
    if (L.merged_slots()) {
      for (std::uint32_t i : lane.notable) {
        const Attempt& a = run.attempts[i];
        if (a.end < L.t0() || a.start > L.t1()) continue;
        const double ax0 = clamp_x(L.x_of(a.start)), ax1 = clamp_x(L.x_of(a.end));
        p.fillRect(QRectF(std::floor(ax0), g.tracks_top, std::max(2.0, ax1 - ax0), h),
                   outcome_color(a.outcome));
      }
    }
    // Grace deadline, while the pod still holds the row.
    if (const auto d = lane.grace_deadline;
        d && *d >= L.t0() && *d <= L.t1() && *d >= pod.from && *d <= pod.to) {
      const int x = static_cast<int>(std::lround(L.x_of(*d)));
      p.setPen(QPen(grace_deadline_color(), 1, Qt::DashLine));
      p.drawLine(x, g.top, x, g.bottom - 1);
    }
  }
  // Markers: a triangle on the band strip, the signal's name next to it where it fits.
  p.setClipRect(visible);
  std::vector<const Marker*> markers;
  std::vector<LabelWish> wishes;
  const QFontMetrics fm = p.fontMetrics();
  for (const RowPod& pod : row.pods) {
    for (const Marker& m : run.lanes[pod.lane].markers) {
      if (m.t < L.t0() || m.t > L.t1()) continue;
      markers.push_back(&m);
      wishes.push_back(LabelWish{L.x_of(m.t), fm.horizontalAdvance(marker_text(m)),
                                 fm.horizontalAdvance(marker_text(m).left(1))});
    }
  }
  const int line_height = fm.height();
  // Rows lower than a line of text show the markers only (their names in the tooltip).
  const int lines = (g.bottom - g.band_top) / line_height;
  const std::vector<LabelPlace> places =
      lines > 0 ? place_labels(wishes, lines, right) : std::vector<LabelPlace>(wishes.size());
  p.setRenderHint(QPainter::Antialiasing, true);
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const Marker& m = *markers[i];
    const double x = wishes[i].x;
    const QPointF tri[3] = {
        {x - 4, double(g.band_top)}, {x + 4, double(g.band_top)}, {x, double(g.band_top) + 7}};
    p.setPen(Qt::NoPen);
    p.setBrush(marker_color(m.kind));
    p.drawPolygon(tri, 3);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setBrush(Qt::NoBrush);
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const LabelPlace& at = places[i];
    if (!at.shown) continue;
    const Marker& m = *markers[i];
    const QRect box = QRect(at.left, g.band_top + at.line * line_height, at.width, line_height)
                          .intersected(visible);
    if (box.isEmpty()) continue;
    // A light backing: the name reads over the preStop hatching and the attempts.
    p.fillRect(box, kLabelBacking);
    p.setPen(m.delivered ? marker_color(m.kind) : QColor(0x99, 0x99, 0x99));
    p.drawText(QRect(at.left, g.band_top + at.line * line_height, at.width, line_height),
               Qt::AlignLeft | Qt::AlignVCenter,
               at.abbreviated ? marker_text(m).left(1) : marker_text(m));
    label_rects_.push_back(box);
  }
  p.setClipping(false);
}

void TimelineView::paint_track(QPainter& p, const Track& track, int y, int h) const {
  const TimelineLayout& L = layout_;
  const IndexRange range = visible(track, {}, L.t0(), L.t1());
  const double left = L.plot_left(), right = L.plot_right();
  const double scale = (right - left) / (L.t1() - L.t0()), t0 = L.t0();
  // Attempts narrower than kMinBar px go into pixel columns, each showing the worst outcome
  // of the attempts that cover it; neighbouring columns of one outcome are one rectangle.
  constexpr double kMinBar = 4;
  long cell = -1, span_start = -1, span_end = -1;
  int cell_rank = -1;
  Outcome cell_outcome = Outcome::kCompleted, span_outcome = Outcome::kCompleted;
  auto draw_span = [&]() {
    if (span_start >= 0) {
      p.fillRect(QRect(static_cast<int>(span_start), y, static_cast<int>(span_end - span_start), h),
                 outcome_color(span_outcome));
    }
    span_start = -1;
  };
  auto close_cell = [&]() {
    if (cell < 0) return;
    if (span_start >= 0 && span_end == cell && span_outcome == cell_outcome) {
      span_end = cell + 1;
    } else {
      draw_span();
      span_start = cell;
      span_end = cell + 1;
      span_outcome = cell_outcome;
    }
    cell = -1;
  };
  for (std::size_t i = range.first; i < range.last; ++i) {
    if (track.end[i] < t0) continue;
    const double x0 = std::max(left, left + (track.start[i] - t0) * scale);
    const double x1 = std::min(right, left + (track.end[i] - t0) * scale);
    const Outcome o = track.outcome[i];
    if (x1 - x0 >= kMinBar) {
      close_cell();
      draw_span();
      const int ix0 = static_cast<int>(std::lround(x0));
      const int ix1 = static_cast<int>(std::lround(x1));
      const bool gap = ix1 - ix0 >= 6;  // a 1 px gap separates neighbouring bars
      p.fillRect(QRect(ix0 + (gap ? 1 : 0), y, ix1 - ix0 - (gap ? 1 : 0), h), outcome_color(o));
      continue;
    }
    const long c0 = static_cast<long>(x0);
    const long c1 = std::max(c0 + 1, static_cast<long>(std::ceil(x1)));
    const int rank = outcome_rank(o);
    for (long c = std::max(c0, cell); c < c1; ++c) {
      if (c != cell) {
        close_cell();
        cell = c;
        cell_rank = -1;
      }
      if (rank > cell_rank) {
        cell_rank = rank;
        cell_outcome = o;
      }
    }
  }
  close_cell();
  draw_span();
}

const Attempt* TimelineView::attempt_at(QPoint pos, const Results** which) const {
  const TimelineLayout& L = layout_;
  if (pos.x() < L.plot_left() || pos.x() >= L.plot_right()) return nullptr;
  const TimelineLayout::Hit hit = L.hit(pos.y());
  if (!hit.lane || (hit.track < 0 && !hit.strip)) return nullptr;
  const Results& run = *L.runs()[hit.lane->run];
  const ReplicaRow& row = L.rows(hit.lane->run)[hit.lane->row];
  // Within half a pixel either side, the attempt nearest the cursor's time.
  const double t = L.t_of(pos.x() + 0.5),
               slack = (L.t1() - L.t0()) / (L.plot_right() - L.plot_left());
  // The pod that holds this part of the row then; on a merged row or the surge strip, any
  // of its slots.
  const RowPod* pod = row.owner_at(t, hit.strip);
  if (!pod) return nullptr;
  const bool any_slot = hit.strip || L.merged_slots();
  const Attempt* best = nullptr;
  for (const Track& track : run.lanes[pod->lane].tracks) {
    if (!any_slot && track.slot != row.used_slots[hit.track]) continue;
    const IndexRange range = visible(track, run.attempts, t - slack, t + slack);
    for (std::size_t i = range.first; i < range.last; ++i) {
      const Attempt& a = run.attempts[track.attempts[i]];
      if (a.end < t - slack || a.start > t + slack) continue;
      // A covering attempt before one merely near; among covering ones, the worst outcome.
      const bool covers = a.start <= t && t <= a.end;
      const bool best_covers = best && best->start <= t && t <= best->end;
      if (!best ||
          (covers && (!best_covers || outcome_rank(a.outcome) >= outcome_rank(best->outcome)))) {
        best = &a;
      }
    }
  }
  if (best && which) *which = &run;
  return best;
}

QString TimelineView::tooltip_at(QPoint pos) const {
  const Results* run = nullptr;
  if (const Attempt* a = attempt_at(pos, &run)) {
    return QStringLiteral("job %1, attempt %2\n%3, worker %4, slot %5\n%6 s → %7 s (%8 s)\n%9")
        .arg(a->job)
        .arg(a->attempt)
        .arg(QString::fromStdString(run->lanes[a->pod].id))
        .arg(a->worker)
        .arg(a->slot)
        .arg(a->start, 0, 'f', 3)
        .arg(a->end, 0, 'f', 3)
        .arg(a->end - a->start, 0, 'f', 3)
        .arg(QString::fromLatin1(to_string(a->outcome)));
  }
  const TimelineLayout::Hit hit = layout_.hit(pos.y());
  if (!hit.lane) return {};
  const Results& results = *layout_.runs()[hit.lane->run];
  const ReplicaRow& row = layout_.rows(hit.lane->run)[hit.lane->row];
  // The label: the row's pods.
  if (pos.x() < layout_.plot_left()) {
    QStringList lines;
    if (layout_.row_mode() == RowMode::kReplica) {
      lines << QStringLiteral("replica %1, held by %2 pod(s):")
                   .arg(hit.lane->row)
                   .arg(row.pods.size());
    }
    for (const RowPod& p : row.pods) lines << pod_life(results.lanes[p.lane]);
    return lines.join(QLatin1Char('\n'));
  }
  const double t = layout_.t_of(pos.x());
  if (hit.band) {
    // Every marker under the cursor, in full.
    QStringList marks;
    for (const RowPod& p : row.pods) {
      const Lane& lane = results.lanes[p.lane];
      for (const Marker& m : lane.markers) {
        if (std::abs(layout_.x_of(m.t) - pos.x()) > 4) continue;
        marks << QStringLiteral("%1: SIG%2 at %3 s (%4%5)")
                     .arg(QString::fromStdString(lane.id),
                          QString::fromLatin1(m.kind == MarkerKind::kOom ? "KILL, OOM"
                                                                         : to_string(m.kind)))
                     .arg(m.t, 0, 'f', 3)
                     .arg(QString::fromStdString(m.source),
                          m.delivered ? QString()
                                      : QStringLiteral(", swallowed by the shell as PID 1"));
      }
    }
    if (!marks.isEmpty()) return marks.join(QLatin1Char('\n'));
  }
  if (!hit.band && !hit.strip) return {};
  const RowPod* pod = row.owner_at(t, hit.strip);
  if (!pod) return {};
  const Lane& lane = results.lanes[pod->lane];
  for (const Band& b : lane.bands) {
    if (b.start <= t && t < b.end) {
      QString text =
          QStringLiteral("%1: %2, %3 s → %4 s")
              .arg(QString::fromStdString(lane.id), QString::fromLatin1(to_string(b.state)))
              .arg(b.start, 0, 'f', 3)
              .arg(b.end, 0, 'f', 3);
      if (hit.strip) text += QStringLiteral("\n(starting while the pod before it drains)");
      if (lane.prestop) {
        text += QStringLiteral("\npreStop %1 s → %2 s")
                    .arg(lane.prestop->start, 0, 'f', 3)
                    .arg(lane.prestop->end, 0, 'f', 3);
      }
      if (lane.grace_deadline) {
        text += QStringLiteral("\ngrace deadline %1 s").arg(*lane.grace_deadline, 0, 'f', 3);
      }
      return text;
    }
  }
  return {};
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = tooltip_at(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(e);
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  if (e->modifiers() & Qt::ShiftModifier) {  // scrolls the rows
    scroll_bar_->setValue(scroll_bar_->value() -
                          static_cast<int>(steps * 3 * TimelineLayout::kMinLaneHeight));
    e->accept();
    return;
  }
  zoom(std::pow(1.25, steps), layout_.t_of(e->position().x()));
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    dragging_ = true;
    drag_x_ = e->position().x();
    setCursor(Qt::ClosedHandCursor);
  }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (!dragging_) return;
  pan_pixels(e->position().x() - drag_x_);
  drag_x_ = e->position().x();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { set_range(0, full_end_); }

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    dragging_ = false;
    unsetCursor();
  }
}

}  // namespace drainsim::viewer
