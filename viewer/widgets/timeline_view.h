// The timeline: the rows of each loaded run (a row per pod, or per replica with replacement
// pods continuing their predecessor's row: replica_rows.h; replica rows by default for big
// fleets), each with its pods' state bands, signal markers (TSTP, TERM, KILL, OOM, ...),
// preStop span and grace deadline, and one track per slot with the attempts as bars
// coloured by outcome; a legend of outcomes, marks and pod states along the bottom. Each
// run's header line carries its caption: the file, scenario, seed and profile, then the
// headline figures (job loss, interrupted, drain p99, longest deploy), so that a picture
// says what it shows without the summary beside it. The
// wheel zooms the time axis around the cursor, dragging pans it, hovering an attempt shows
// its job, attempt, times and outcome (a marker: its signal, time and source; a row's label:
// the pods it held), double-click shows the whole run again. Scrollable (the window), rows
// that do not fit at a readable height scroll under the time axis with a scroll bar on the
// right (or Shift + wheel). Only draws: the data comes from results_reader.h.
//
// Marker names never print over each other: they are stacked, abbreviated or left out
// (marker_labels.h), on a light backing so they read over the preStop hatching; the
// tooltip has them in full.
//
// Drawing cost follows the pixels, not the attempts: each track draws the attempts that
// reach into the visible range (binary search), and attempts narrower than a pixel are
// merged per pixel column, showing the worst outcome among them.
//
// GUI thread only.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <QWidget>

#include "reader/results_reader.h"
#include "widgets/replica_rows.h"
#include "widgets/timeline_layout.h"

QT_BEGIN_NAMESPACE
class QScrollBar;
QT_END_NAMESPACE

namespace drainsim::viewer {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  // Shows `runs`: the whole of them, or the same time range as before if it was zoomed.
  void set_runs(std::vector<std::shared_ptr<const Results>> runs);
  // The visible time range; clamped to the runs' span, at least 1 ms wide.
  void set_range(double t0, double t1);
  void zoom(double factor, double anchor_t);  // factor > 1 zooms in
  void pan_pixels(double dx);                 // content follows the mouse by dx pixels
  double full_end() const { return full_end_; }
  // Rows per pod or per replica; nullopt (the default): replica rows when the runs have
  // more than kReplicaRowsAbovePods pods in all.
  void set_row_mode(std::optional<RowMode> mode);
  RowMode row_mode() const { return layout_.row_mode(); }
  // Rows keep a readable height and scroll (the window) instead of all squeezed into the
  // widget (a picture). Default: off.
  void set_scrollable(bool on);

  // The layout as of the last resize (what paint uses).
  const TimelineLayout& layout() const { return layout_; }
  // The attempt drawn at `pos`, if any; and the hover text for it.
  const Attempt* attempt_at(QPoint pos, const Results** run = nullptr) const;
  QString tooltip_at(QPoint pos) const;
  // What the last paint drew: where each marker label went, and the pod state legend's
  // swatches.
  const std::vector<QRect>& marker_label_rects() const { return label_rects_; }
  const std::vector<std::pair<PodState, QRect>>& state_legend() const { return state_legend_; }
  // The run headers the last paint drew, in run order: what the run is, then its figures.
  const std::vector<QString>& run_captions() const { return captions_; }

  // A run's headline figures as its header gives them, each left out when the file has
  // none: "job loss 3 (OOM kills 3) · interrupted 16 (0.5 %; OOM kills 16) · drain p99
  // 25 s · longest deploy 55 s".
  static QString figures(const Results& run);

  void paint(QPainter& p) const;

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  bool event(QEvent*) override;

 private:
  void paint_track(QPainter& p, const Track& track, int y, int h) const;
  void paint_row(QPainter& p, const LaneGeometry& g) const;
  QString row_label(const LaneGeometry& g) const;
  void sync_scroll_bar();

  std::vector<std::shared_ptr<const Results>> runs_;
  TimelineLayout layout_;
  std::optional<RowMode> forced_mode_;
  QScrollBar* scroll_bar_;
  double full_end_ = 1;
  bool dragging_ = false;
  double drag_x_ = 0;
  mutable std::vector<QRect> label_rects_;
  mutable std::vector<std::pair<PodState, QRect>> state_legend_;
  mutable std::vector<QString> captions_;
};

}  // namespace drainsim::viewer
