// The runs conformance checks judge (analysis/conformance.h): the scenario of a check,
// and what one run of it says about pod-0's first process, read from the typed results.
// Internal to the conformance checks.
#pragma once

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/job.h"
#include "profiles/profile.h"

namespace drainsim::conformance {

inline constexpr double kEps = 1e-9;
inline constexpr const char* kPod = "pod-0";

// Seconds as the timeline has them (microseconds), without float noise: "0.1s", "35s".
inline std::string secs(double s) { return fmt::format("{}s", std::round(s * 1e6) / 1e6); }

// How long after the deadline a stop still counts as ending at it (a body's cancel latency).
inline constexpr double kDeadlineSlack = 1;

// One scenario of a check: one pod, jobs arriving at `arrivals` with the `durations`
// (in order), the signals sent straight to pod-0, and the settings the check needs.
struct Setup {
  std::vector<std::string> arrivals;
  std::vector<std::string> durations;
  std::vector<std::pair<std::string, std::string>> signals;  // at, signal
  std::optional<Duration> grace;                             // unset: the profile's default
  std::string settle = "30m";
};

struct AttemptRow {
  JobId job;
  int attempt;
  WorkerId worker;
  double start, end;
  std::string outcome;
};
struct ReportRow {
  double at;
  WorkerId worker;
  JobId job;
  int attempt;
  std::string kind, error;
  bool accepted;
};
struct TimedRow {
  double at;
  WorkerId worker;
  std::string what;  // a pod state, a heartbeat state or a remaining count
};

// One scenario run, read back from its results: pod-0's first process and what the
// timeline says about it.
struct CheckedRun {
  Setup setup;
  Duration grace = kNever;  // the worker's grace period; kNever: forever
  double heartbeat = 0;
  double run_end = 0;
  WorkerId worker = kNoWorker;
  double ended = -1;  // -1: still running at the end
  int code = 0;
  std::string exit;
  std::vector<std::pair<double, std::string>> signals;  // pod-0's, as evidence lines
  std::vector<std::pair<double, std::string>> states;   // pod-0's pod states
  std::vector<AttemptRow> attempts;                     // of `worker`
  std::vector<ReportRow> reports;                       // of `worker`
  std::vector<TimedRow> heartbeats, remaining;          // of `worker`

  double signal_at(std::size_t i) const {
    return to_seconds(parse_duration(setup.signals[i].first).value_or(0));
  }
  bool forever() const { return grace == kNever; }
  // TERM + grace, in seconds. REQUIRES: !forever().
  double deadline_after(double term) const { return term + to_seconds(grace); }
  double end_or_run_end() const { return ended < 0 ? run_end : ended; }
  // The first pod state recorded at `t` (the one the signal caused), or "".
  std::string state_at(double t) const {
    for (const auto& [at, s] : states) {
      if (std::abs(at - t) < kEps) return s;
    }
    return "";
  }
  std::string exit_line() const {
    if (ended < 0) return fmt::format("{} still running at the end ({})", kPod, secs(run_end));
    if (exit == "died_on_term") {
      // Either it had no handler, or it killed itself with the signal after its drain
      // (graphile-worker's exits_by_signal).
      return fmt::format("{} {} died of the signal: exit {}", secs(ended), kPod, code);
    }
    if (exit == "clean" || exit == "exited_with_error") {
      return fmt::format("{} {} exited {}", secs(ended), kPod, code);
    }
    return fmt::format("{} {} ended: {} (exit {})", secs(ended), kPod, exit, code);
  }
  std::string scenario_line() const {
    std::vector<std::string> jobs;
    for (std::size_t i = 0; i < setup.arrivals.size(); ++i) {
      jobs.push_back(
          fmt::format("{} at {}", setup.durations[i % setup.durations.size()], setup.arrivals[i]));
    }
    std::vector<std::string> sigs;
    for (const auto& [at, sig] : setup.signals) sigs.push_back(fmt::format("{} at {}", sig, at));
    return fmt::format("scenario: one pod; jobs {}; {}; grace {} ({})", fmt::join(jobs, ", "),
                       fmt::join(sigs, ", "),
                       forever() ? std::string(kForever) : secs(to_seconds(grace)),
                       setup.grace ? "set for this check" : "profile default");
  }
};

using Evidence = std::vector<std::string>;

std::string attempt_line(const AttemptRow& a);
std::string report_line(const ReportRow& r);
// The last report of a's job and attempt, or nullptr.
const ReportRow* find_report(const CheckedRun& r, const AttemptRow& a);
// The evidence every check starts with: the scenario line, then pod-0's signals.
void add_scenario(const CheckedRun& r, Evidence& ev);

// Runs `setup` for `profile` on the virtual engine with the timeline on.
CheckedRun run_setup(const Profile& profile, const std::string& id, const Setup& setup);

}  // namespace drainsim::conformance
