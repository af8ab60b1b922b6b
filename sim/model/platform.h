// Platform: the Kubernetes (or Docker) side of a deploy. Pods start (pod_start_delay),
// run one worker process at a time (a crashed or OOM-killed container restarts after
// restart_delay + pod_start_delay), and are deleted by the deployment controller (rolling
// restart with maxSurge/maxUnavailable, scale up/down), by node drains or by events.
// Deletion starts the grace countdown, runs preStop, sends TERM to PID 1 and SIGKILLs at
// the deadline (with the one-off 2 s extension when preStop still runs). Readiness (a
// started pod whose worker is running) drives rollout availability. Event-driven through
// the Runtime. Not thread-safe.
#pragma once

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include "base/names.h"
#include "engine/runtime.h"
#include "model/backend.h"
#include "model/process_handle.h"
#include "model/recorder.h"
#include "model/scenario.h"

namespace drainsim {

// How a process ended, as the results count it (docs/design.md, Metrics: exits).
enum class ExitKind : std::uint8_t {
  kRunning,           // still running at the end of the run
  kClean,             // exited 0 by itself
  kExitedWithError,   // exited non-zero by itself (e.g. a force stop)
  kDiedOnTerm,        // killed by a signal's default action (no handler)
  kKilledAtDeadline,  // SIGKILL at the grace deadline
  kOomKilled,
  kKilledBySignal,  // SIGKILL from a signal event or a preStop script
};
constexpr std::array<std::string_view, 7> names(ExitKind) {
  return {
      "running",    "clean",           "exited_with_error", "died_on_term", "killed_at_deadline",
      "oom_killed", "killed_by_signal"};
}
inline const char* to_string(ExitKind v) { return name_of(v).data(); }

struct ProcessRecord {
  int pod = 0;
  WorkerId worker = kNoWorker;
  Time started = 0;
  Time ended = -1;
  Time termination = -1;  // preStop start or TERM/INT from a deletion or signal event
  ExitKind exit = ExitKind::kRunning;
  int code = 0;
};

// How the results name a process's end (pods[].processes[].exit): its ExitKind, or
// "running_at_end" for one still running at the end.
inline const char* exit_name(const ProcessRecord& r) {
  return r.exit == ExitKind::kRunning ? "running_at_end" : to_string(r.exit);
}

struct PodRecord {
  int id = 0;
  int node = 0;
  int generation = 0;
  Time created = 0;
  Time first_ready = -1;
  Time deleted = -1;
  Time gone = -1;
  std::vector<int> processes;  // indices into Platform::processes()
};

struct DeployRecord {
  Time start = 0;
  Time end = -1;  // last new pod ready and last old pod gone; -1 if unfinished
  bool superseded = false;
};

class Platform final : public TimerTarget, public ProcessObserver {
 public:
  // `processes` makes each container's process: simulated, a real program's proxy, ...
  // (run/models.h wires them). REQUIRES: `processes` is not empty.
  Platform(Runtime& runtime, const Scenario& scenario, Backend& backend, Recorder& recorder,
           ProcessFactory processes);
  ~Platform();

  // Creates the initial replicas, their programs started at the current time (ready once
  // each program's start-up, worker.startup, is over).
  void start();
  // Applies a scripted event; `index` names it in warnings.
  void apply(const ScenarioEvent& event, std::size_t index);
  // Something is still happening: a pod starting or terminating, a worker draining or
  // exiting, a rollout unfinished.
  bool busy() const;

  const std::vector<PodRecord>& pods() const { return records_; }
  const std::vector<ProcessRecord>& processes() const { return process_records_; }
  const std::vector<DeployRecord>& deploys() const { return deploys_; }

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;
  void on_worker_state(int pod, WorkerState state) override;
  void on_process_end(int pod, ProcessEnd how, int code) override;

 private:
  enum Tag : std::uint32_t {
    kStarted,
    kRestart,
    kPreStopDone,
    kPreStopPoll,
    kPreStopTimeout,
    kDeadline,
    kExtensionKill,
    kReconcile,
  };
  enum class Phase : std::uint8_t { kStarting, kRunning, kCrashed, kGone };
  enum class KillReason : std::uint8_t { kNone, kDeadline, kOom, kSignal };

  struct Pod {
    Phase phase = Phase::kStarting;
    bool deleting = false;
    bool prestop_running = false;
    bool ready = false;
    PodState shown = PodState::kGone;
    KillReason kill_reason = KillReason::kNone;
    Time deadline = 0;
    ProcessHandle* process = nullptr;  // current, when running
    int process_index = -1;
    TimerId start_timer, prestop_timer, prestop_timeout, deadline_timer;
  };

  int create_pod(bool ready_now);
  void start_process(int pod);
  // `cause`: the event the deletion belongs to (model/causes.h).
  void delete_pod(int pod, CauseId cause);
  void finish_prestop(int pod);
  void send(int pod, Signal signal, const char* source, bool to_pid1);
  // Whether a signal gets to the worker: a shell as PID 1 swallows all but SIGKILL.
  bool reaches_worker(Signal signal, bool to_pid1) const;
  void sigkill(int pod, KillReason reason, const char* source);
  void mark_termination(int pod);
  void refresh(int pod);
  void reconcile_soon();
  void reconcile();
  // Picks `count` pods of `candidates` to delete: not ready first, then the newest.
  void delete_ranked(std::vector<int> candidates, int count, CauseId cause);
  bool pod_exists(int pod, std::size_t event_index, const char* what);
  int next_node();
  bool docker() const;

  Runtime& rt_;
  const Scenario& scenario_;
  Backend& backend_;
  Recorder& recorder_;
  std::vector<Pod> pods_;
  std::vector<PodRecord> records_;
  ProcessFactory factory_;
  std::vector<std::unique_ptr<ProcessHandle>> process_objects_;
  std::vector<ProcessRecord> process_records_;
  std::vector<DeployRecord> deploys_;
  std::vector<bool> cordoned_;
  int replicas_;
  int generation_ = 0;
  int surge_ = 0, unavailable_ = 0;
  bool rollout_ = false;
  CauseId rollout_cause_ = kNoCause;  // the rolling restart under way
  CauseId scale_cause_ = kNoCause;    // the latest scale_down
  int node_cursor_ = 0;
  TimerId reconcile_;
};

}  // namespace drainsim
