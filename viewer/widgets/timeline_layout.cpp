#include "widgets/timeline_layout.h"

#include <algorithm>

namespace drainsim::viewer {

void TimelineLayout::set_runs(std::vector<const Results*> runs, RowMode mode) {
  runs_ = std::move(runs);
  set_row_mode(mode);
}

void TimelineLayout::set_row_mode(RowMode mode) {
  mode_ = mode;
  rows_.clear();
  for (const Results* r : runs_) {
    rows_.push_back(mode == RowMode::kReplica ? replica_rows(r->lanes, r->ended_at)
                                              : pod_rows(r->lanes, r->ended_at));
  }
  relayout();
}

void TimelineLayout::set_size(int width, int height) {
  width_ = width;
  height_ = height;
  relayout();
}

void TimelineLayout::set_range(double t0, double t1) {
  t0_ = t0;
  t1_ = t1;
}

void TimelineLayout::set_scrollable(bool on) {
  scrollable_ = on;
  relayout();
}

void TimelineLayout::set_scroll(int px) {
  scroll_ = std::clamp(px, 0, max_scroll_);
  relayout();
}

double TimelineLayout::x_of(double t) const {
  return plot_left() + (t - t0_) / (t1_ - t0_) * (plot_right() - plot_left());
}

double TimelineLayout::t_of(double x) const {
  return t0_ + (x - plot_left()) / (plot_right() - plot_left()) * (t1_ - t0_);
}

void TimelineLayout::relayout() {
  lanes_.clear();
  headers_.clear();
  int tracks = 0, nrows = 0;
  for (const std::vector<ReplicaRow>& rows : rows_) {
    for (const ReplicaRow& row : rows) {
      tracks += std::max<int>(1, static_cast<int>(row.used_slots.size()));
      ++nrows;
    }
  }
  const bool strips = mode_ == RowMode::kReplica;
  const int headers = kRunHeader * static_cast<int>(runs_.size());
  int avail = rows_bottom() - rows_top() - headers;
  if (scrollable_) avail = std::max(avail, nrows * kMinLaneHeight);
  int band = kBandHeight, gap = kLaneGap;
  auto strip_for = [&](int b) { return strips ? std::max(2, b / 4) : 0; };
  int strip = strip_for(band);
  merged_ = false;
  auto row_height_for = [&](int n) {
    return n == 0 ? kMaxRowHeight : (avail - nrows * (band + strip + gap)) / n;
  };
  if (nrows > 0 && row_height_for(tracks) < kMinTrackHeight) {
    band = std::clamp(avail * 2 / 5 / nrows - 1, 2, kBandHeight);
    gap = std::max(1, band / 3);
    strip = strip_for(band);
    if (row_height_for(tracks) < kMinTrackHeight) merged_ = true;
  }
  int row_height = std::clamp(row_height_for(merged_ ? nrows : tracks), 1, kMaxRowHeight);
  // Scrollable, a row of one track is kMinLaneHeight at least.
  if (scrollable_) row_height = std::max(row_height, kMinLaneHeight - (band + strip + gap));
  auto place = [&](int scroll) {
    lanes_.clear();
    headers_.clear();
    int y = rows_top() - scroll;
    for (int r = 0; r < static_cast<int>(runs_.size()); ++r) {
      headers_.push_back(y);
      y += kRunHeader;
      for (int i = 0; i < static_cast<int>(rows_[r].size()); ++i) {
        const ReplicaRow& row = rows_[r][i];
        LaneGeometry g;
        g.run = r;
        g.row = i;
        g.lane = row.pods.front().lane;
        g.top = y;
        g.band_top = y;
        g.band_height = band;
        g.strip_top = y + band;
        g.strip_height = strip;
        g.tracks_top = g.strip_top + strip;
        g.row_height = row_height;
        const int n = merged_ ? 1 : std::max<int>(1, static_cast<int>(row.used_slots.size()));
        g.bottom = g.tracks_top + row_height * n;
        lanes_.push_back(g);
        y = g.bottom + gap;
      }
    }
    return y + scroll;  // the content's bottom, unscrolled
  };
  const int content_bottom = place(0);
  max_scroll_ = scrollable_ ? std::max(0, content_bottom - rows_bottom()) : 0;
  right_margin_ = kRightMargin + (max_scroll_ > 0 ? kScrollBarWidth : 0);
  scroll_ = std::clamp(scroll_, 0, max_scroll_);
  if (scroll_ > 0) place(scroll_);
}

const LaneGeometry* TimelineLayout::row_of(int run, int lane) const {
  for (const LaneGeometry& g : lanes_) {
    if (g.run != run) continue;
    for (const RowPod& p : rows_[run][g.row].pods) {
      if (p.lane == lane) return &g;
    }
  }
  return nullptr;
}

std::optional<int> TimelineLayout::track_center(int run, int lane, int slot) const {
  const LaneGeometry* g = row_of(run, lane);
  if (!g) return std::nullopt;
  bool used = false;  // by this pod
  for (const Track& t : runs_[run]->lanes[lane].tracks) used = used || t.slot == slot;
  if (!used) return std::nullopt;
  const std::vector<int>& row_slots = rows_[run][g->row].used_slots;
  const auto k = std::find(row_slots.begin(), row_slots.end(), slot) - row_slots.begin();
  const int row = merged_ ? 0 : static_cast<int>(k);
  return g->tracks_top + row * g->row_height + (g->row_height - 1) / 2;
}

TimelineLayout::Hit TimelineLayout::hit(int y) const {
  Hit h;
  if (y < rows_top() || y >= rows_bottom()) return h;
  for (const LaneGeometry& g : lanes_) {
    if (y < g.top || y >= g.bottom) continue;
    h.lane = &g;
    if (y < g.strip_top) {
      h.band = true;
    } else if (y < g.tracks_top) {
      h.strip = true;
    } else {
      const int k = merged_ ? 0 : (y - g.tracks_top) / g.row_height;
      if (k < static_cast<int>(rows_[g.run][g.row].used_slots.size())) h.track = k;
    }
    break;
  }
  return h;
}

}  // namespace drainsim::viewer
