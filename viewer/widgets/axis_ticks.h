// Axis ticks as a person reads them: round steps and short labels, for every chart and the
// timeline. Plain C++ (no Qt), so the rules are tested on their own.
//
// Time axes step through a clock-like ladder: 1-2-5 x 10^n below a second, then 1, 2, 5,
// 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, then 1-2-5 x 10^n h; labels in the duration
// syntax of base/duration.h ("0s", "3m30s", "1h30m", "0.5s", "1m0.25s"). Value axes step by
// 1-2-5 x 10^n with short labels ("0", "500", "1k", "1.5k", "2M", "0.25"), count axes no finer than
// 1; percent axes the same steps of values in percent, labelled "0%", "25%", "100%". Each picks the
// smallest step that leaves at least `min_px` between ticks on an axis `length_px` long.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace drainsim::viewer {

enum class TickKind { kTime, kValue, kCount, kPercent };  // kCount: whole steps

struct Tick {
  double value = 0;
  std::string label;
};

// The step for `span` (> 0) over `length_px`, at least `min_px` apart.
double tick_step(TickKind kind, double span, double length_px, double min_px);

// The multiples of `step` in [lo, hi] (both ends included, to a millionth of a step),
// labelled; empty if hi < lo.
std::vector<Tick> ticks_with_step(TickKind kind, double lo, double hi, double step);

// tick_step then ticks_with_step; for hi <= lo, one tick at lo.
std::vector<Tick> axis_ticks(TickKind kind, double lo, double hi, double length_px, double min_px);

// The label of `value` among ticks `step` apart (its decimals follow the step).
std::string tick_label(TickKind kind, double value, double step);

// A round upper end for an axis from 0 showing values up to `max` with some headroom:
// `max` x 1.05 rounded up to a step, the step the axis [0, end] ticks at, so the end is
// labelled (1 for max <= 0).
double round_axis_max(TickKind kind, double max, double length_px, double min_px);

}  // namespace drainsim::viewer
