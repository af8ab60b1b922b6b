// SimulatedProcess: one simulated worker OS process. It hosts a WorkerCore, runs its job
// bodies through a JobRunner (timers, or real threads on the real-time engine): a body
// ends after its remaining work, or fails partway, or stops when cancelled; checkpoints
// are saved every checkpoint_interval of run time and at a graceful FAIL. It talks to the
// in-process Backend, reports attempts to the Recorder, and applies signals: SIGKILL kills
// it on the spot, a signal the core does not handle takes its default action.
//
// Threading (Hops): on the virtual engine everything runs inline on one thread. On the
// real-time engine the process lives on a strand of its own (its Runtime), and each
// touch of the models (backend, recorder, platform) is handed to `to_models`, which runs
// it under the models' lock or on their strand; the models reach the process through
// `to_process`. The platform reads state(), active_jobs() and worker_id() from its side.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "engine/job_runner.h"
#include "engine/runtime.h"
#include "model/backend.h"
#include "model/process_handle.h"
#include "model/recorder.h"
#include "model/sampler.h"
#include "model/scenario.h"
#include "model/worker_core.h"

namespace drainsim {

// How work crosses between a process's strand and the models'; empty: run it inline.
struct Hops {
  std::function<void(std::function<void()>)> to_models;
  std::function<void(std::function<void()>)> to_process;
};

class SimulatedProcess final : public ProcessHandle,
                               public WorkerPort,
                               public WorkerListener,
                               public TimerTarget {
 public:
  SimulatedProcess(Runtime& runtime, Backend& backend, Recorder& recorder,
                   ProcessObserver& observer, const WorkerConfig& worker,
                   const WorkloadConfig& workload, int pod, JobBody bodies = JobBody::kTimer,
                   Pid1 pid1 = Pid1::kWorker, Hops hops = {});

  // ProcessHandle. start() starts the program: after its start-up (worker.startup, drawn
  // here) it registers with the backend and starts the worker. A signal during start-up
  // finds no handler yet and takes its default action.
  void start() override;
  void deliver(Signal signal, SignalTarget target) override;
  void kill_child() override;
  WorkerId worker_id() const override { return worker_id_; }
  WorkerState state() const override { return state_.load(std::memory_order_acquire); }
  int active_jobs() const override { return active_.load(std::memory_order_acquire); }

  // SIGKILL. On the process's side.
  void kill();
  bool alive() const { return alive_.load(); }

  // WorkerPort
  void fetch(int count) override;
  void wait_for_jobs() override;
  void ack(int slot, const Lease& lease) override;
  void fail(int slot, const Lease& lease, ErrorKind error, bool retryable) override;
  void heartbeat(Directive state, std::span<const Lease> active) override;
  void requeue(int slot, const Lease& lease) override;
  void release(const Lease& lease) override;
  void keep(const Lease& lease) override;
  void deregister() override;
  void start_job(int slot, const Lease& lease) override;
  void cancel_job(int slot) override;
  void detach_job(int slot) override;
  void state_changed(WorkerState state) override;
  void log_remaining(int active) override;
  void exit(int code, Outcome leftover) override;

  // WorkerListener
  void on_jobs_available() override;

  // TimerTarget
  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  enum Tag : std::uint32_t {
    kWake = 1,
    kFetch = 2,
    kDetachedEnd = 3,
    kStarted = 4
  };  // and JobRunner's
  struct Body {
    Lease lease;
    Time start = 0;
    Time natural_end = 0;  // when it ends by itself: its work done, or its failure
    std::uint32_t generation = 0;
    bool running = false;
    bool fails = false;
    bool cancelled = false;
    Duration saved = 0;    // work its attempt checkpointed, set when the attempt ends
    TimerId detached_end;  // a detached body's own end (a Runtime timer, not the runner)
    int slot = 0;          // a detached body's slot when it was let go
  };

  // Work saved at a graceful stop (all of it, with checkpointing) after `run`.
  Duration graceful_saves(const Body& body, Duration run) const;
  // Work saved by periodic checkpoints after `run` of this attempt.
  Duration periodic_saves(const Body& body, Duration run) const;
  // Ends the attempt in `slot` now with `outcome`, having checkpointed `saved`. `ended`:
  // its body ended by itself (its runner has nothing to stop).
  void end_attempt(int slot, Outcome outcome, Duration saved, bool ended = false);
  // Records the attempt of `body` (in slot `slot` or detached from it) as ended now.
  void record_end(const Body& body, int slot, Outcome outcome, Duration saved);
  // Ends every body, in the slots and detached, as its process stops under it.
  void end_all(Outcome outcome);
  void end_slots(Outcome outcome);  // the slots' bodies only, not the detached ones
  // A detached body ended by itself: its run is recorded, and reported to nobody.
  void end_detached(std::size_t index);
  void die(ProcessEnd how, int code);
  // The program has started: it registers and its worker runs.
  void run_worker();
  bool starting() const { return started_.pending(); }
  void deliver_here(Signal signal, SignalTarget target);
  // On the models' side: tells the recorder what the worker reported about `lease`.
  void record_report(Time now, const Lease& lease, ReportKind kind, ErrorKind error, bool accepted);
  void mirror();  // publishes the core's state and active count to the platform's side
  // The fetch reaches the backend (its round trip spent) and its reply the core.
  void send_fetch(int count);
  // As on_models([=] { f(args...); }), but on the virtual engine f runs at once on the
  // caller's arguments: no copy of a lease or record at every event (issue 19).
  template <class F, class... A>
  void on_models_with(F f, const A&... args) {
    if (hops_.to_models) {
      hops_.to_models([f, ... copies = args] { f(copies...); });
    } else {
      f(args...);
    }
  }
  template <class F>
  void on_models(F&& f) {
    if (hops_.to_models) {
      hops_.to_models(std::forward<F>(f));
    } else {
      f();
    }
  }
  template <class F>
  void on_process(F&& f) {
    if (hops_.to_process) {
      hops_.to_process(std::forward<F>(f));
    } else {
      f();
    }
  }

  Runtime& rt_;
  Backend& backend_;
  Recorder& recorder_;
  ProcessObserver& observer_;
  const WorkloadConfig& workload_;
  std::vector<int> queues_;
  WorkerCore core_;
  std::unique_ptr<JobRunner> runner_;
  std::vector<Body> bodies_;
  std::vector<Body> detached_;  // bodies running on after their slot let go of their job
  std::vector<Lease> fetched_;
  DurationSampler fetch_latency_;  // worker.fetch_latency
  bool instant_fetch_;             // worker.fetch_latency is 0: no draw, no timer
  bool pool_children_;             // ShutdownBehaviour::child_lost is not kNone
  Duration fetch_reissue_;         // ShutdownBehaviour::consumer_fetch_timeout: its waits' BRPOP
  DurationSampler startup_;        // worker.startup
  bool instant_start_;             // worker.startup is 0: no draw, no timer
  TimerId started_;  // the end of its start-up, pending while it runs (the process's side)
  TimerId wake_;
  TimerId fetch_;  // a fetch on its way to the backend
  WorkerId worker_id_ = kNoWorker;
  int pod_;
  Pid1 pid1_;
  bool paced_;  // its Runtime follows the wall clock: its bodies' lateness is told to it
  Hops hops_;
  std::atomic<bool> alive_{false};
  std::atomic<WorkerState> state_{WorkerState::kRunning};
  std::atomic<int> active_{0};
};

}  // namespace drainsim
