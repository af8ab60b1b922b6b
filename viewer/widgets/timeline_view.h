// The timeline: one lane per pod of each loaded run (old and new pods alike), its state
// bands, signal markers (TSTP, TERM, KILL, OOM, ...), preStop span and grace deadline, and
// one track per slot with the attempts as bars coloured by outcome. The wheel zooms the
// time axis around the cursor, dragging pans it, hovering an attempt shows its job, attempt,
// times and outcome (a marker: its signal, time and source), double-click shows the whole
// run again. Only draws: the data comes from results_reader.h.
//
// Drawing cost follows the pixels, not the attempts: each track draws the attempts that
// reach into the visible range (binary search), and attempts narrower than a pixel are
// merged per pixel column, showing the worst outcome among them.
//
// GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "reader/results_reader.h"
#include "widgets/timeline_layout.h"

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

  // The layout as of the last resize (what paint uses).
  const TimelineLayout& layout() const { return layout_; }
  // The attempt drawn at `pos`, if any; and the hover text for it.
  const Attempt* attempt_at(QPoint pos, const Results** run = nullptr) const;
  QString tooltip_at(QPoint pos) const;

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

  std::vector<std::shared_ptr<const Results>> runs_;
  TimelineLayout layout_;
  double full_end_ = 1;
  bool dragging_ = false;
  double drag_x_ = 0;
};

}  // namespace drainsim::viewer
