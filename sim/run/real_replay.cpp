#include "run/real_replay.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/parse.h"
#include "run/run_options.h"

namespace drainsim {

using nlohmann::json;

namespace {
// How long a broker's list may go on naming a job as running once its run has completed:
// Sidekiq's lists it until its process's next heartbeat, every 5 s; an interrupted run asks
// at once.
constexpr Duration kListLag = 6 * kSecond;
}  // namespace

Inspection parse_inspection(const std::string& text, const std::string& system) {
  const json doc = json::parse(text, nullptr, false);
  const std::string where = fmt::format("the {} inspector's output", system);
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_object()) {
    throw RunError(fmt::format("{} is not {{\"versions\": ..., \"jobs\": {{...}}}}: {}", where,
                               text.substr(0, 300)));
  }
  Inspection out;
  out.versions = doc.value("versions", json::object());
  for (const auto& [id, state] : doc["jobs"].items()) {
    const std::optional<JobId> job = parse_number<JobId>(id);
    const std::string s = state.is_string() ? state.get<std::string>() : "";
    if (!job || (s != "available" && s != "scheduled" && s != "active" && s != "completed" &&
                 s != "discarded")) {
      throw RunError(
          fmt::format("{}: jobs.{}: expected a job id and one of available, "
                      "scheduled, active, completed, discarded, got {}",
                      where, id, state.dump()));
    }
    out.jobs[*job] = s;
  }
  return out;
}

// Work the broker still has to hand out or finish.
bool holds_work(const Inspection& i) {
  return std::any_of(i.jobs.begin(), i.jobs.end(), [](const auto& j) {
    return j.second == "available" || j.second == "scheduled" || j.second == "active";
  });
}

InspectedBackend::InspectedBackend(const Inspection& i) {
  for (const auto& [job, state] : i.jobs) {
    if (state == "available") jobs_[job] = JobState::kAvailable;
    if (state == "scheduled") jobs_[job] = JobState::kScheduled;
    if (state == "active") jobs_[job] = JobState::kActive;
  }
}

std::optional<JobState> InspectedBackend::job_state(std::uint32_t, JobId id) const {
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? std::nullopt : std::optional(it->second);
}

Inspection replay(Recorder& recorder, const std::vector<Pushed>& pushed,
                  const std::map<std::uint64_t, Time>& confirmed, AdapterReport report,
                  const Inspection& inspection, Time ended_at, bool availability_reported) {
  recorder.count_recovery(availability_reported);
  // The inspector looks at the broker from ended_at on: an attempt that ended after that,
  // of a job the broker still says a worker holds, was running when it looked.
  const auto late = std::stable_partition(
      report.attempts.begin(), report.attempts.end(), [&](const AttemptRecord& a) {
        const auto held = inspection.jobs.find(a.job);
        return a.end <= ended_at || held == inspection.jobs.end() || held->second != "active";
      });
  report.in_flight.insert(report.in_flight.end(), late, report.attempts.end());
  report.attempts.erase(late, report.attempts.end());
  // A system that hands a job back before the job's body hears of it (Sidekiq requeues,
  // then raises Sidekiq::Shutdown) may start it again elsewhere before the interrupted
  // attempt reports its end: that attempt ended, for the job, when the next one started.
  std::map<JobId, std::vector<Time>> starts;
  for (const auto* list : {&report.attempts, &report.in_flight}) {
    for (const AttemptRecord& a : *list) starts[a.job].push_back(a.start);
  }
  for (AttemptRecord& a : report.attempts) {
    if (a.outcome != Outcome::kInterrupted) continue;
    for (Time t : starts[a.job]) {
      if (t > a.start && t < a.end) a.end = t;
    }
  }
  struct Job {
    std::uint32_t ledger = 0;
    std::uint32_t claims = 0;
    JobState state = JobState::kAvailable;  // the ledger's, as replayed so far
    bool completed = false;
    Time last_start = -1, last_end = -1;
    Outcome last = Outcome::kCompleted;
    int attempts = 0;
    int running = 0;  // attempts started and not yet ended, as replayed so far
  };
  std::map<JobId, Job> jobs;
  // At one instant: pushes, then ends, then the system's word that a job is available
  // again, then starts.
  enum Kind { kEnqueue, kEnd, kAvailable, kStart };
  struct Step {
    Time at;
    Kind kind;
    JobId job;
    const AttemptRecord* attempt;
  };
  std::vector<Step> steps;
  std::map<JobId, Time> first_start;
  for (const auto* list : {&report.attempts, &report.in_flight}) {
    for (const AttemptRecord& a : *list) {
      steps.push_back({a.start, kStart, a.job, &a});
      if (list == &report.attempts) steps.push_back({a.end, kEnd, a.job, &a});
      const auto [it, added] = first_start.emplace(a.job, a.start);
      if (!added) it->second = std::min(it->second, a.start);
    }
  }
  if (availability_reported) {
    for (const Availability& a : report.available)
      steps.push_back({a.at, kAvailable, a.job, nullptr});
  }
  for (const Pushed& p : pushed) {
    if (p.refused) {
      recorder.push_refused();  // no job was created
      continue;
    }
    // Enqueued when the enqueuer said so, or when a worker started it if that was seen
    // first (the worker's event can beat the enqueuer's line to drainsim).
    const auto c = confirmed.find(p.id);
    Time at = c == confirmed.end() ? p.written : c->second;
    if (const auto f = first_start.find(p.id); f != first_start.end()) at = std::min(at, f->second);
    steps.push_back({at, kEnqueue, p.id, nullptr});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.at != b.at ? a.at < b.at : a.kind < b.kind;
  });
  // The latest start of each job, to know whether a completion is its last word.
  std::map<JobId, Time> latest_start;
  for (const Step& s : steps) {
    if (s.kind == kStart) latest_start[s.job] = std::max(latest_start[s.job], s.at);
  }
  // The broker's word on a job at the end: "" when it holds it no more, "discarded" also
  // when the adapter said the system failed it for good and the broker holds it no more.
  const auto said = [&inspection, &report](JobId id) {
    const auto it = inspection.jobs.find(id);
    if (it != inspection.jobs.end()) return it->second;
    return report.discarded.contains(id) ? std::string("discarded") : std::string();
  };
  std::map<const AttemptRecord*, std::pair<Lease, int>> open;  // lease, slot
  std::map<WorkerId, std::vector<bool>> slots;                 // by process: the slots in use
  std::map<JobId, Time> told_while_running;  // available, said before its attempt's end
  std::set<JobId> unreported;                // orphaned, restarted, never said available
  for (const Step& s : steps) {
    if (s.kind == kEnqueue) {
      Job& j = jobs[s.job];
      j.ledger = recorder.job_enqueued(s.job, s.at, static_cast<std::uint32_t>(s.job));
      recorder.job_available(j.ledger, s.at);
      continue;
    }
    if (s.kind == kAvailable) {
      const auto it = jobs.find(s.job);
      if (it == jobs.end()) continue;
      Job& j = it->second;
      // A recovery, as the model's mechanisms tell the recorder: the next run is a shutdown
      // retry, or a redelivery while a run still holds the job. Also after a run that
      // completed: the system refused its completion (BullMQ's lapsed lock).
      recorder.job_recovered(j.ledger, s.at);
      if (j.completed) continue;
      if (j.running > 0) {
        // Handed back before its attempt ended (Sidekiq requeues, then raises in the job):
        // available once that attempt has ended.
        told_while_running[s.job] = s.at;
      } else if (j.state != JobState::kAvailable) {
        recorder.job_available(j.ledger, s.at);
        j.state = JobState::kAvailable;
      }
      continue;
    }
    const auto it = jobs.find(s.job);
    if (it == jobs.end()) {
      recorder.audit_error(
          fmt::format("job {}: the adapter reports an attempt of a job drainsim "
                      "never pushed",
                      s.job));
      continue;
    }
    Job& j = it->second;
    AttemptRecord a = *s.attempt;
    std::vector<bool>& used = slots[a.worker];
    if (s.kind == kStart) {
      if (j.state != JobState::kAvailable) {
        // Started again with no word that it was available: counted to this start.
        if (availability_reported && j.attempts > 0 && j.last != Outcome::kCompleted &&
            j.last != Outcome::kFailed) {
          unreported.insert(s.job);
        }
        recorder.job_available(j.ledger, s.at);
      }
      recorder.job_claimed(j.ledger, s.at);
      j.state = JobState::kActive;
      Lease lease;
      lease.id = s.job;
      lease.handle = static_cast<std::uint32_t>(s.job);
      lease.ledger = j.ledger;
      lease.attempt = a.attempt;
      lease.claim = ++j.claims;
      // Its slot: the lowest free one of its process.
      const auto free = std::find(used.begin(), used.end(), false);
      const int slot = static_cast<int>(free - used.begin());
      if (free == used.end()) {
        used.push_back(true);
      } else {
        *free = true;
      }
      open[s.attempt] = {lease, slot};
      recorder.attempt_started(lease, s.at);
      j.last_start = s.at;
      ++j.attempts;
      ++j.running;
      continue;
    }
    const auto started = open.find(s.attempt);
    if (started == open.end()) continue;  // its start was refused above
    const auto [lease, slot] = started->second;
    open.erase(started);
    --j.running;
    a.slot = slot;
    used[static_cast<std::size_t>(slot)] = false;
    recorder.attempt_ended(lease, a, 0);
    j.last_end = s.at;
    j.last = a.outcome;
    if (a.outcome == Outcome::kCompleted) {
      j.completed = true;  // settled: its ledger state no longer matters below
      // A job the broker failed for good took none of its completions: settled below.
      if (latest_start[s.job] <= a.start && said(s.job) != "discarded") {
        recorder.job_completed(j.ledger, s.at);
        j.state = JobState::kCompleted;
      }
    } else if (a.outcome == Outcome::kFailed) {
      recorder.job_scheduled(j.ledger, s.at);  // a retry waits, unless it is settled below
      j.state = JobState::kScheduled;
    } else if (const auto told = told_while_running.find(s.job); told != told_while_running.end()) {
      recorder.job_available(j.ledger, s.at);  // handed back already: at once
      j.state = JobState::kAvailable;
      told_while_running.erase(told);
    }
  }
  if (!unreported.empty()) {
    recorder.warning(
        "recovery_unreported",
        fmt::format("jobs {}: ran again after an attempt that did not complete, but the "
                    "adapter never said the system made them available again: their orphan "
                    "recovery is counted to their next start",
                    fmt::join(unreported, ", ")));
  }
  // Settle every job by the broker's word.
  Inspection audited = inspection;
  std::vector<JobId> held_unstarted, unsettled;
  std::set<JobId> running;  // an attempt in flight at the end, on a live process
  for (const AttemptRecord& a : report.in_flight) running.insert(a.job);
  for (auto& [id, j] : jobs) {
    std::string state = said(id);
    if (state.empty() && running.contains(id) && inspection.taken) {
      // Its worker holds it, though the broker's list lags (Sidekiq's lists a job at the
      // process's next heartbeat): not lost.
      state = audited.jobs[id] = "active";
    }
    if (!inspection.taken && !j.completed) {  // no word: as its attempts left it
      unsettled.push_back(id);
      audited.jobs[id] = to_string(j.state);  // available, scheduled or active
      continue;
    }
    // A completed job the broker failed for good (it refused the completions of runs it no
    // longer held: a lapsed lock) is settled as discarded below, as the backend has it.
    if (j.completed && state != "discarded") {
      if (state == "active" && j.state == JobState::kCompleted && !running.contains(id) &&
          ended_at - j.last_end <= kListLag) {
        // Its last attempt completed just before the end, and none runs: the broker's list
        // lags. The completion the adapter reported is final.
        audited.jobs[id] = "completed";
      } else if (state == "available" || state == "scheduled" || state == "active") {
        recorder.audit_error(
            fmt::format("job {}: completed at {} but the broker still holds it "
                        "({})",
                        id, format_seconds(to_seconds(j.last_end)), state));
      } else if (j.state != JobState::kCompleted) {
        // A run started after the completion (a duplicate) had the last word above; the
        // broker holds the job no more, so it took a completion.
        recorder.job_completed(j.ledger, ended_at);
      }
      continue;
    }
    const Time at =
        std::max(j.last_end, j.last_start) >= 0 ? std::max(j.last_end, j.last_start) : ended_at;
    if (state == "available") {
      if (j.state != JobState::kAvailable) recorder.job_available(j.ledger, ended_at);
    } else if (state == "scheduled") {
      recorder.job_scheduled(j.ledger, ended_at);
    } else if (state == "active") {
      // Held by a worker (an attempt in flight), or locked by one that died: stuck. A
      // worker may also hold a job it has not started (Celery's prefetched messages).
      if (j.state != JobState::kActive) {
        recorder.job_claimed(j.ledger, ended_at);
        held_unstarted.push_back(id);
      }
    } else if (state == "discarded") {
      // Its own error, a process (or pool child) killed under it, or a shutdown's.
      const ErrorKind why = j.last == Outcome::kFailed   ? ErrorKind::kHandler
                            : j.last == Outcome::kKilled ? ErrorKind::kWorkerDeath
                                                         : ErrorKind::kShutdown;
      recorder.job_discarded(j.ledger, at, why, 0);
    } else if (state == "completed") {
      recorder.audit_error(
          fmt::format("job {}: the broker says completed but no attempt of it "
                      "completed",
                      id));
    } else if (j.attempts == 0) {
      recorder.job_lost(j.ledger, at, "never started, and the broker holds it no more");
    } else {
      recorder.job_lost(j.ledger, at,
                        fmt::format("its attempt {} ended {}, and the broker holds it no more",
                                    j.attempts, to_string(j.last)));
    }
  }
  if (!held_unstarted.empty()) {
    recorder.warning(
        "prefetched_unstarted",
        fmt::format("jobs {}: held by a worker at the end (the broker says active) though none "
                    "of their attempts was running: fetched ahead (prefetched), "
                    "not started",
                    fmt::join(held_unstarted, ", ")));
  }
  if (!unsettled.empty()) {
    recorder.warning(
        "broker_not_asked",
        fmt::format(
            "jobs {}: not settled by their attempts, and the run ended ({}) before "
            "the broker was asked where they are: counted as pending, as their "
            "attempts left them",
            fmt::join(unsettled, ", "),
            inspection.not_taken.empty() ? "a second SIGINT or SIGTERM" : inspection.not_taken));
  }
  return audited;
}

}  // namespace drainsim
