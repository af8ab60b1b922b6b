// A Qt Charts value axis labelled by axis_ticks.h: round steps with short labels ("3m30s",
// "1.5k", "25%") instead of QValueAxis's evenly divided range (0, 203, 407, ...). A
// QCategoryAxis with its labels on the tick values, re-labelled whenever its range or its
// length in pixels changes; series attach to it as to any value axis (zoom works). GUI
// thread only.
#pragma once

#include <QCategoryAxis>
#include <QStringList>

#include "widgets/axis_ticks.h"

namespace drainsim::viewer {

class TickAxis : public QCategoryAxis {
  Q_OBJECT

 public:
  // `min_px`: the least room between two ticks (about a label's width on a horizontal axis,
  // a few lines of text on a vertical one).
  explicit TickAxis(TickKind kind, double min_px, QObject* parent = nullptr);

  TickKind kind() const { return kind_; }
  // The axis's length on screen (the plot area's width or height); ticks are re-chosen.
  void set_length(double px);
  double length() const { return length_px_; }
  // Range from a round value at or below min(0, `lo`) to one above `hi` (round_axis_max),
  // chosen again whenever the length changes, so both ends stay labelled ticks.
  void fit(double lo, double hi);
  // The tick values and labels shown now.
  const std::vector<Tick>& ticks() const { return ticks_; }
  QStringList labels() const;

 private:
  void relabel();
  void refit();

  TickKind kind_;
  double min_px_;
  double length_px_ = 400;
  bool fitted_ = false;
  double fit_lo_ = 0, fit_hi_ = 0;
  std::vector<Tick> ticks_;
};

}  // namespace drainsim::viewer
