// Where the timeline view puts things: time <-> x over the visible range, and the rows of
// each run (RowMode: a row per pod, or a row per replica whose pods follow one another,
// replica_rows.h). A row is a band strip for its pod's states, in replica rows a thin surge
// strip for a successor that starts while its predecessor still drains, then one track per
// slot, or one track for all slots when there are too many to fit (band strips and gaps
// shrink first). The view draws with it and the tests find pixels with it. Whole-pixel
// coordinates, so bars are drawn without anti-aliasing. Not thread-safe; a plain value.
//
// Fitting: by default every row is squeezed into the height (a picture shows the whole
// fleet, at 1 px a track if need be). Scrollable (the window), no row gets smaller than
// kMinLaneHeight: rows that do not fit overflow below, and scroll() moves them up under the
// fixed time axis; the legend stays at the bottom.
#pragma once

#include <optional>
#include <vector>

#include "reader/results_reader.h"
#include "widgets/replica_rows.h"

namespace drainsim::viewer {

struct LaneGeometry {
  int run = 0;
  int row = 0;           // index into rows(run)
  int lane = 0;          // the row's first pod (pod lanes: its pod), index into Results::lanes
  int top = 0;           // the row's first pixel row
  int band_top = 0;      // the state band strip
  int band_height = 0;   // including a 1 px gap below when there is room
  int strip_top = 0;     // the surge strip (replica rows only)
  int strip_height = 0;  // 0 in pod lanes
  int tracks_top = 0;    // first slot track
  int row_height = 0;    // per slot track
  int bottom = 0;        // one past the row's last pixel row
};

class TimelineLayout {
 public:
  static constexpr int kLabelWidth = 128;
  static constexpr int kRightMargin = 12;
  static constexpr int kScrollBarWidth = 14;  // added to the right margin when scrolling
  static constexpr int kAxisHeight = 26;
  static constexpr int kRunHeader = 18;
  static constexpr int kBandHeight = 12;
  static constexpr int kLaneGap = 6;
  static constexpr int kMaxRowHeight = 24;
  // Slot tracks lower than this are merged into one track per row (one track of 9 px reads
  // better than four of 2 px).
  static constexpr int kMinTrackHeight = 3;
  static constexpr int kLegendHeight = 36;  // two lines: outcomes and marks, pod states
  // The smallest row a scrollable layout draws: a 4 px band strip, a 7 px track, the surge
  // strip or gap; room for one line of label text.
  static constexpr int kMinLaneHeight = 14;

  // Lays out `runs` (not owned; they must outlive the layout's use) in `width` x `height`.
  void set_runs(std::vector<const Results*> runs, RowMode mode = RowMode::kPod);
  void set_row_mode(RowMode mode);
  RowMode row_mode() const { return mode_; }
  void set_size(int width, int height);
  void set_range(double t0, double t1);  // REQUIRES: t1 > t0
  void set_scrollable(bool on);
  // Moves the rows up by `px` (clamped to [0, max_scroll()]).
  void set_scroll(int px);
  int scroll() const { return scroll_; }
  int max_scroll() const { return max_scroll_; }

  double t0() const { return t0_; }
  double t1() const { return t1_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int plot_left() const { return kLabelWidth; }
  int plot_right() const { return width_ - right_margin_; }  // one past the last column
  // The rows show between these (the time axis above, the legend below).
  int rows_top() const { return kAxisHeight; }
  int rows_bottom() const { return height_ - kLegendHeight; }
  // The x of time t (fractional); t0 maps to plot_left, t1 to plot_right.
  double x_of(double t) const;
  double t_of(double x) const;

  // Every row of every run, top to bottom, scrolled (some may be out of sight).
  const std::vector<LaneGeometry>& lanes() const { return lanes_; }
  const std::vector<ReplicaRow>& rows(int run) const { return rows_[run]; }
  // True when the slots do not fit kMinTrackHeight px each: each row then has a single
  // track with all its slots merged.
  bool merged_slots() const { return merged_; }
  const std::vector<const Results*>& runs() const { return runs_; }
  // The y of the middle of the track of `slot` in the row of pod `lane` of `run`; nullopt
  // if that row has no track for it.
  std::optional<int> track_center(int run, int lane, int slot) const;
  // The geometry of the row holding pod `lane` of `run`.
  const LaneGeometry* row_of(int run, int lane) const;
  // The y of each run's header line.
  const std::vector<int>& run_headers() const { return headers_; }

  struct Hit {
    const LaneGeometry* lane = nullptr;
    int track = -1;  // index into the row's slots (0 when merged); -1: a strip or the gap
    bool band = false;
    bool strip = false;  // the surge strip
  };
  Hit hit(int y) const;

 private:
  void relayout();

  std::vector<const Results*> runs_;
  std::vector<std::vector<ReplicaRow>> rows_;
  std::vector<LaneGeometry> lanes_;
  std::vector<int> headers_;
  RowMode mode_ = RowMode::kPod;
  bool merged_ = false, scrollable_ = false;
  int width_ = 800, height_ = 600;
  int right_margin_ = kRightMargin, scroll_ = 0, max_scroll_ = 0;
  double t0_ = 0, t1_ = 1;
};

}  // namespace drainsim::viewer
