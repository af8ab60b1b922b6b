#include "model/fate_rule.h"

#include <algorithm>

namespace drainsim {

namespace {

// TERM after the preStop hook, for a termination at `t`.
Time term_time(const PlatformConfig& p, Time t) {
  const PreStop& hook = p.pre_stop;
  if (hook.kind == PreStop::Kind::kSleep || hook.kind == PreStop::Kind::kQuietThenSleep) {
    return t + std::min(hook.duration, p.grace_period());
  }
  return t;
}

const char* deadline_fate(ShutdownBehaviour::AtDeadline a) {
  return a == ShutdownBehaviour::AtDeadline::kLeave ? "abandoned" : "interrupted";
}

}  // namespace

std::vector<FateCheck> check_fates(const Scenario& s, const std::vector<PodRecord>& pods,
                                   const std::vector<ProcessRecord>& processes,
                                   const std::vector<AttemptRecord>& attempts,
                                   const std::function<Duration(JobId)>& work) {
  std::vector<FateCheck> out;
  const ShutdownBehaviour& b = s.worker.shutdown;
  for (const ProcessRecord& p : processes) {
    const bool killed = p.exit == ExitKind::kOomKilled || p.exit == ExitKind::kKilledBySignal;
    if (p.termination < 0 && !killed) continue;
    const Time at = p.termination >= 0 ? p.termination : p.ended;
    // The platform's SIGKILL: a deletion's deadline, or the kill itself.
    Time kill = kNever;
    const PodRecord* pod = nullptr;
    for (const PodRecord& r : pods) {
      if (r.id == p.pod) pod = &r;
    }
    if (p.termination < 0) {
      kill = p.ended;
    } else if (pod != nullptr && pod->deleted >= 0 && pod->deleted <= p.termination) {
      kill = pod->deleted + s.platform.grace_period();
    } else if (killed) {
      kill = p.ended;
    }
    const Time term = p.termination >= 0 ? term_time(s.platform, p.termination) : kNever;
    const auto after = [term](Duration d) {
      return term == kNever || d == kNever ? kNever : term + d;
    };
    // Without a handler TERM kills the process, unless it is PID 1: then it waits for the kill.
    const bool dies_on_term = !b.handles_term && s.platform.pid1() != Pid1::kWorker;
    const Time deadline = b.handles_term ? after(b.action_delay(s.worker.grace_period))
                          : dies_on_term ? term
                                         : kNever;
    const Time cancel = after(b.cancel_after);
    for (const AttemptRecord& a : attempts) {
      // An attempt the kill ended counts even if its recorded end (the process's death, as
      // seen by whoever reaped it) is a little before the platform noted the kill.
      const bool cut = a.outcome == Outcome::kKilled || a.outcome == Outcome::kAbandoned;
      if (a.pod != p.pod || a.worker != p.worker || a.start > at) continue;
      if (a.end < at && !(p.termination < 0 && cut)) continue;
      const Duration remaining = a.start + work(a.job) - at;
      if (remaining <= 0) continue;  // done by then
      const Time finish = at + remaining;
      // fails_at_lease_expiry: the worker lets go of a run at its lease's expiry, and the run
      // goes on to its end or its process's, whichever comes first.
      const Time expiry = b.fails_at_lease_expiry ? a.start + s.backend.visibility_timeout : kNever;
      const Time ended = p.ended >= 0 ? p.ended : kNever;
      std::string predicted;
      if (expiry < finish && expiry < std::min({deadline, cancel, kill})) {
        predicted = finish <= ended           ? "completed"
                    : ended >= kill || killed ? "killed"
                                              : "abandoned";
      } else if (finish <= std::min({deadline, cancel, kill})) {
        predicted = "completed";
      } else if (dies_on_term && term <= kill) {
        predicted = "killed";  // TERM's default action
      } else if (std::min(deadline, cancel) < kill) {
        predicted = cancel < deadline ? "interrupted" : deadline_fate(b.at_deadline);
      } else {
        predicted = "killed";
      }
      out.push_back({a.job, a.attempt, a.pod, at, remaining, predicted, to_string(a.outcome)});
    }
  }
  return out;
}

}  // namespace drainsim
