// Where the timeline view puts things: time <-> x over the visible range, and the rows of
// each run's lanes (a band strip for the pod's states, then one track per slot, or one row
// for all slots when there are too many to fit; band strips and gaps shrink first). The view
// draws with it and the tests find pixels with it. Whole-pixel coordinates, so bars are
// drawn without anti-aliasing. Not thread-safe; a plain value.
#pragma once

#include <optional>
#include <vector>

#include "reader/results_reader.h"

namespace drainsim::viewer {

struct LaneGeometry {
  int run = 0, lane = 0;
  int top = 0;          // the lane's first pixel row
  int band_top = 0;     // the state band strip
  int band_height = 0;  // including a 1 px gap below when there is room
  int tracks_top = 0;   // first slot track
  int row_height = 0;   // per slot track
  int bottom = 0;       // one past the lane's last pixel row
};

class TimelineLayout {
 public:
  static constexpr int kLabelWidth = 96;
  static constexpr int kRightMargin = 12;
  static constexpr int kAxisHeight = 26;
  static constexpr int kRunHeader = 18;
  static constexpr int kBandHeight = 12;
  static constexpr int kLaneGap = 6;
  static constexpr int kMaxRowHeight = 24;
  static constexpr int kLegendHeight = 20;

  // Lays out `runs` (not owned; they must outlive the layout's use) in `width` x `height`.
  void set_runs(std::vector<const Results*> runs);
  void set_size(int width, int height);
  void set_range(double t0, double t1);  // REQUIRES: t1 > t0

  double t0() const { return t0_; }
  double t1() const { return t1_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int plot_left() const { return kLabelWidth; }
  int plot_right() const { return width_ - kRightMargin; }  // one past the last column
  // The x of time t (fractional); t0 maps to plot_left, t1 to plot_right.
  double x_of(double t) const;
  double t_of(double x) const;

  const std::vector<LaneGeometry>& lanes() const { return lanes_; }
  // True when the slots do not fit one pixel row each: each lane then has a single row
  // with all its slots merged.
  bool merged_slots() const { return merged_; }
  const std::vector<const Results*>& runs() const { return runs_; }
  // The y of the middle of the track of `slot` in `lane` of `run`; nullopt if that slot
  // has no track there.
  std::optional<int> track_center(int run, int lane, int slot) const;
  // The y of each run's header line.
  const std::vector<int>& run_headers() const { return headers_; }

  struct Hit {
    const LaneGeometry* lane = nullptr;
    int track = -1;  // index into the lane's tracks (0 when merged); -1: band strip or gap
    bool band = false;
  };
  Hit hit(int y) const;

 private:
  void relayout();

  std::vector<const Results*> runs_;
  std::vector<LaneGeometry> lanes_;
  std::vector<int> headers_;
  bool merged_ = false;
  int width_ = 800, height_ = 600;
  double t0_ = 0, t1_ = 1;
};

}  // namespace drainsim::viewer
