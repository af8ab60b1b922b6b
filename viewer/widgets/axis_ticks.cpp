#include "widgets/axis_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/duration.h"

namespace drainsim::viewer {

namespace {

// The smallest 1, 2 or 5 x 10^n at least `raw` (> 0).
double one_two_five(double raw) {
  const double base = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (base * m >= raw * (1 - 1e-9)) return base * m;
  }
  return base * 10;
}

// Decimals needed to write multiples of `step` exactly (0.5 -> 1, 0.25 -> 2, 5 -> 0).
int decimals_for(double step) {
  return std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
}

// `v` with `decimals` decimals, trailing zeros (and a bare point) dropped; "-0" is "0".
std::string trimmed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string time_label(double t, double step) {
  // Whole seconds are written exactly as the scenarios write durations.
  if (step >= 1) return format_duration(std::llround(t) * kSecond);
  std::string out;
  if (t < 0) {
    out = "-";
    t = -t;
  }
  const int decimals = decimals_for(step);
  const double scale = std::pow(10.0, decimals);
  const auto units = static_cast<long long>(std::llround(t * scale));
  const auto per_minute = static_cast<long long>(60 * scale);
  const long long h = units / (60 * per_minute), m = units / per_minute % 60;
  const double s = static_cast<double>(units % per_minute) / scale;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s > 0 || (!h && !m)) out += trimmed(s, decimals) + "s";
  return out == "-0s" ? "0s" : out;
}

std::string value_label(double v, double step) {
  const double a = std::abs(v);
  const double unit = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  const char* suffix = unit == 1e9 ? "G" : unit == 1e6 ? "M" : unit == 1e3 ? "k" : "";
  return trimmed(v / unit, decimals_for(step / unit)) + suffix;
}

}  // namespace

double tick_step(TickKind kind, double span, double length_px, double min_px) {
  const double raw = std::max(span, 1e-12) * min_px / std::max(1.0, length_px);
  switch (kind) {
    case TickKind::kTime: {
      if (raw <= 1) return std::min(1.0, one_two_five(raw));
      for (double s :
           {1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0}) {
        if (s >= raw * (1 - 1e-9)) return s;
      }
      return 3600 * one_two_five(raw / 3600);
    }
    case TickKind::kCount:
      return std::max(1.0, one_two_five(raw));
    case TickKind::kPercent:
    case TickKind::kValue:
      break;
  }
  return one_two_five(raw);
}

std::string tick_label(TickKind kind, double value, double step) {
  switch (kind) {
    case TickKind::kTime:
      return time_label(value, step);
    case TickKind::kPercent:
      return value_label(value, step) + "%";
    case TickKind::kCount:
    case TickKind::kValue:
      break;
  }
  return value_label(value, step);
}

std::vector<Tick> ticks_with_step(TickKind kind, double lo, double hi, double step) {
  std::vector<Tick> out;
  if (!(hi >= lo) || !(step > 0)) return out;
  const double first = std::ceil(lo / step - 1e-6), last = std::floor(hi / step + 1e-6);
  if (last - first > 10000) return out;  // not a readable axis
  for (double k = first; k <= last; ++k) {
    const double v = k * step;
    out.push_back({v, tick_label(kind, v, step)});
  }
  return out;
}

std::vector<Tick> axis_ticks(TickKind kind, double lo, double hi, double length_px, double min_px) {
  if (!(hi > lo)) return {{lo, tick_label(kind, lo, 1)}};
  return ticks_with_step(kind, lo, hi, tick_step(kind, hi - lo, length_px, min_px));
}

double round_axis_max(TickKind kind, double max, double length_px, double min_px) {
  if (!(max > 0)) return 1;
  const double want = max * 1.05;
  // The end must be a tick of its own axis, whose step may be coarser than want's.
  double step = tick_step(kind, want, length_px, min_px), top = want;
  for (int i = 0; i < 8; ++i) {
    top = std::ceil(want / step - 1e-9) * step;
    const double coarser = tick_step(kind, top, length_px, min_px);
    if (coarser <= step) break;
    step = coarser;
  }
  return top;
}

}  // namespace drainsim::viewer
