// WorkerProcess: one simulated worker OS process. It hosts a WorkerCore, runs its job
// bodies through a JobRunner (timers, or real threads on the real-time engine): a body
// ends after its remaining work, or fails partway, or stops when cancelled; checkpoints
// are saved every checkpoint_interval of run time and at a graceful FAIL. It talks to the
// in-process Backend, reports attempts to the Recorder, and applies signals: SIGKILL kills
// it on the spot, a signal the core does not handle takes its default action.
#pragma once

#include <vector>

#include "backend.h"
#include "job_runner.h"
#include "process_handle.h"
#include "recorder.h"
#include "runtime.h"
#include "scenario.h"
#include "worker_core.h"

namespace drainsim {

class WorkerProcess final : public ProcessHandle,
                            public WorkerPort,
                            public WorkerListener,
                            public TimerTarget {
 public:
  WorkerProcess(Runtime& runtime, Backend& backend, Recorder& recorder, ProcessObserver& observer,
                const WorkerConfig& worker, const WorkloadConfig& workload, int pod,
                JobBody bodies = JobBody::kTimer, double time_scale = 1, bool pid1_shell = false);

  // ProcessHandle. start() registers with the backend and starts the worker.
  void start() override;
  void deliver(Signal signal, SignalTarget target) override;
  WorkerId worker_id() const override { return worker_id_; }
  WorkerState state() const override { return core_.state(); }
  int active_jobs() const override { return core_.active(); }

  // SIGKILL.
  void kill();
  bool alive() const { return alive_; }

  // WorkerPort
  void fetch(int count) override;
  void wait_for_jobs() override;
  void ack(int slot, const Lease& lease) override;
  void fail(int slot, const Lease& lease, ErrorKind error, bool retryable) override;
  void heartbeat(Directive state, std::span<const Lease> active) override;
  void deregister() override;
  void start_job(int slot, const Lease& lease) override;
  void cancel_job(int slot) override;
  void state_changed(WorkerState state) override;
  void log_remaining(int active) override;
  void exit(int code) override;

  // WorkerListener
  void on_jobs_available() override;

  // TimerTarget
  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  enum Tag : std::uint32_t { kWake = 1 };  // and JobRunner's tags
  struct Body {
    Lease lease;
    Time start = 0;
    Time natural_end = 0;  // when it ends by itself: its work done, or its failure
    std::uint32_t generation = 0;
    bool running = false;
    bool fails = false;
    bool cancelled = false;
    Duration saved = 0;  // work its attempt checkpointed, set when the attempt ends
  };

  // Work saved at a graceful stop (all of it, with checkpointing) after `run`.
  Duration graceful_saves(const Body& body, Duration run) const;
  // Work saved by periodic checkpoints after `run` of this attempt.
  Duration periodic_saves(const Body& body, Duration run) const;
  // Ends the attempt in `slot` now with `outcome`, having checkpointed `saved`.
  void end_attempt(int slot, Outcome outcome, Duration saved);
  void end_all(Outcome outcome);
  void die(ProcessEnd how, int code);

  Runtime& rt_;
  Backend& backend_;
  Recorder& recorder_;
  ProcessObserver& observer_;
  const WorkloadConfig& workload_;
  std::vector<int> queues_;
  WorkerCore core_;
  std::unique_ptr<JobRunner> runner_;
  std::vector<Body> bodies_;
  std::vector<Lease> fetched_;
  TimerId wake_;
  WorkerId worker_id_ = kNoWorker;
  int pod_;
  bool pid1_shell_;  // the worker runs under a shell as PID 1
  bool alive_ = false;
};

}  // namespace drainsim
