#include "widgets/timeline_layout.h"

#include <algorithm>

namespace drainsim::viewer {

void TimelineLayout::set_runs(std::vector<const Results*> runs) {
  runs_ = std::move(runs);
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

double TimelineLayout::x_of(double t) const {
  return plot_left() + (t - t0_) / (t1_ - t0_) * (plot_right() - plot_left());
}

double TimelineLayout::t_of(double x) const {
  return t0_ + (x - plot_left()) / (plot_right() - plot_left()) * (t1_ - t0_);
}

void TimelineLayout::relayout() {
  lanes_.clear();
  headers_.clear();
  int rows = 0, lanes = 0;
  for (const Results* r : runs_) {
    for (const Lane& l : r->lanes) {
      rows += std::max<int>(1, static_cast<int>(l.tracks.size()));
      ++lanes;
    }
  }
  const int avail =
      height_ - kAxisHeight - kLegendHeight - kRunHeader * static_cast<int>(runs_.size());
  int band = kBandHeight, gap = kLaneGap;
  merged_ = false;
  auto row_height_for = [&](int nrows) {
    return nrows == 0 ? kMaxRowHeight : (avail - lanes * (band + gap)) / nrows;
  };
  if (lanes > 0 && row_height_for(rows) < 1) {
    band = std::clamp(avail * 2 / 5 / lanes - 1, 2, kBandHeight);
    gap = std::max(1, band / 3);
    if (row_height_for(rows) < 1) merged_ = true;
  }
  const int row_height = std::clamp(row_height_for(merged_ ? lanes : rows), 1, kMaxRowHeight);
  int y = kAxisHeight;
  for (int r = 0; r < static_cast<int>(runs_.size()); ++r) {
    headers_.push_back(y);
    y += kRunHeader;
    for (int i = 0; i < static_cast<int>(runs_[r]->lanes.size()); ++i) {
      const Lane& l = runs_[r]->lanes[i];
      LaneGeometry g;
      g.run = r;
      g.lane = i;
      g.top = y;
      g.band_top = y;
      g.band_height = band;
      g.tracks_top = y + band;
      g.row_height = row_height;
      const int nrows = merged_ ? 1 : std::max<int>(1, static_cast<int>(l.tracks.size()));
      g.bottom = g.tracks_top + row_height * nrows;
      lanes_.push_back(g);
      y = g.bottom + gap;
    }
  }
}

std::optional<int> TimelineLayout::track_center(int run, int lane, int slot) const {
  for (const LaneGeometry& g : lanes_) {
    if (g.run != run || g.lane != lane) continue;
    const std::vector<Track>& tracks = runs_[run]->lanes[lane].tracks;
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      if (tracks[k].slot == slot) {
        const int row = merged_ ? 0 : static_cast<int>(k);
        return g.tracks_top + row * g.row_height + (g.row_height - 1) / 2;
      }
    }
  }
  return std::nullopt;
}

TimelineLayout::Hit TimelineLayout::hit(int y) const {
  Hit h;
  for (const LaneGeometry& g : lanes_) {
    if (y < g.top || y >= g.bottom) continue;
    h.lane = &g;
    if (y < g.tracks_top) {
      h.band = true;
    } else {
      const int k = merged_ ? 0 : (y - g.tracks_top) / g.row_height;
      if (k < static_cast<int>(runs_[g.run]->lanes[g.lane].tracks.size())) h.track = k;
    }
    break;
  }
  return h;
}

}  // namespace drainsim::viewer
