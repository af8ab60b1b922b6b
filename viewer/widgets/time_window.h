// The stretch of time a picture shows (`drainsim-viewer --render --from 2m --to 6m`, or
// `--around deploy`), worked out from the command line's words and the loaded runs.
// Durations are drainsim's (base/duration.h: 90s, 1m30s, 250ms).
//   --from A --to B   [A, B]; either may be left out (the run's start, the run's end). B
//                     past the run's end is cut to it; A at or after the end, or B not
//                     after A, is an error.
//   --around deploy   the first rollout's window (earliest over the runs), widened on each
//                     side by a quarter of its length, at least 15 s (kAroundMargin);
//   --around chaos    the same for the first chaos window (oom_kill, signal, ...);
//   --around T        [T - 30 s, T + 30 s] (kAroundHalfWidth).
// Everything is cut to [0, the run's end]. Thread-safety: pure functions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reader/results_reader.h"

namespace drainsim::viewer {

inline constexpr double kAroundMargin = 15;     // s, at least, each side of a window
inline constexpr double kAroundHalfWidth = 30;  // s, each side of --around T

struct TimeWindow {
  double t0 = 0, t1 = 0;
};

struct WindowRequest {
  std::string from, to, around;  // as given; empty: not given
  bool empty() const { return from.empty() && to.empty() && around.empty(); }
};

struct WindowChoice {
  std::optional<TimeWindow> window;  // nullopt: nothing asked (the whole run) or an error
  std::string error;                 // for the user, naming the option; empty if none
};

// The window `request` names for the runs that have a timeline in `runs`.
WindowChoice choose_window(const WindowRequest& request,
                           const std::vector<std::shared_ptr<const Results>>& runs);

}  // namespace drainsim::viewer
