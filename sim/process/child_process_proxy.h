// ChildProcessProxy: one real worker process of the process engine (docs/worker-protocol.md)
// as the platform and the backend see it. start() spawns the program, under a shell
// that swallows signals when PID 1 is a shell; deliver() signals it with kill(2), a
// SIGKILL aimed at PID 1 taking its whole process group as a container kill does. It
// serves the worker's requests to the backend, learns the worker's state from its
// registration and heartbeats, and records its attempts from the outside: a fetch (or a
// wait's answer that carries jobs) starts an attempt, an ACK completes it, a NACK fails it
// (interrupted for ShutdownError), and the jobs it holds when its process ends (ended(),
// from waitpid) were killed (it died of a signal) or abandoned (it exited). Runs on the
// models' strand.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/asio_runtime.h"
#include "model/backend.h"
#include "model/process_handle.h"
#include "model/recorder.h"
#include "model/scenario.h"
#include "process/child_process.h"
#include "process/http_server.h"
#include "process/worker_log.h"

namespace drainsim {

// A request the worker got wrong: answered with `status` and an error document.
struct RequestError {
  int status;
  std::string code;
  std::string message;
};

// What every process of a run shares.
struct ProxyContext {
  StrandRuntime& rt;  // the models' strand
  Backend& backend;
  Recorder& recorder;
  Reaper& reaper;
  const Scenario& scenario;
  SpawnSpec program;    // the worker: argv, the environment without the OJS_* variables
  std::string ojs_url;  // http://127.0.0.1:PORT
  std::string shell;    // the worker's command line, to run under a shell as PID 1
  // Stops the run: the worker program cannot be run at all.
  std::function<void(std::string)> fatal;
  // The workers' output, when it is kept (--worker-log); null: discarded.
  WorkerLog* log = nullptr;
  // A process ended without having registered (told with how it ended and after how long,
  // in simulated time).
  std::function<void(const std::string& name, ChildExit how, Duration lived)> unregistered_end;

  // Simulated time to real and back, at the run's time scale (rt.time_scale()).
  double real_ms(Duration simulated) const;
  Duration simulated(double real_ms) const;
};

class ChildProcessProxy final : public ProcessHandle, public WorkerListener, public TimerTarget {
 public:
  // `name` is the worker id it is told to use (OJS_WORKER_ID).
  ChildProcessProxy(const ProxyContext& context, ProcessObserver& observer, int pod,
                    std::string name);

  // ProcessHandle
  void start() override;
  void deliver(Signal signal, SignalTarget target) override;
  // drainsim-worker has no pool children: a scenario with oom_kill_child is refused before
  // a process-engine run (run/process_engine), so this is never called.
  void kill_child() override {}
  WorkerId worker_id() const override { return worker_id_; }
  WorkerState state() const override { return state_; }
  int active_jobs() const override { return static_cast<int>(held_.size()); }

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  bool alive() const { return alive_; }
  bool registered() const { return worker_id_ != kNoWorker; }
  Time started_at() const { return started_at_; }
  // The program's start-up drawn for it (worker.startup), before which it does not register.
  Duration startup() const { return startup_; }

  // A request to /ojs/v1/workers/<op>; answers through `respond`, at once or later.
  // Throws RequestError.
  void handle(const std::string& op, const nlohmann::json& body, const Responder& respond);
  // The process has ended (reaped).
  void ended(ChildExit how);

  // WorkerListener, TimerTarget
  void on_jobs_available() override;
  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  struct Held {
    Lease lease;
    Time start = 0;
    int slot = 0;
  };

  nlohmann::json register_worker(const nlohmann::json& body);
  nlohmann::json fetch(const nlohmann::json& body);
  // Fetches up to `count` jobs for the worker and starts their attempts: the jobs array
  // of a fetch reply.
  nlohmann::json hand_out(int count);
  nlohmann::json ack(const nlohmann::json& body);
  nlohmann::json nack(const nlohmann::json& body);
  nlohmann::json heartbeat(const nlohmann::json& body);
  void wait(const nlohmann::json& body, const Responder& respond);
  // The job a request names, which this worker must hold.
  Held& held(const nlohmann::json& body);
  void end_attempt(const Held& h, Outcome outcome);
  void set_state(WorkerState s);
  void answer_wait(bool available);

  const ProxyContext& context_;
  ProcessObserver& observer_;
  int pod_;
  std::string name_;
  pid_t pid_ = -1;         // the child: the worker, or the shell that runs it
  pid_t worker_pid_ = -1;  // the worker's own pid, as it registered
  WorkerId worker_id_ = kNoWorker;
  WorkerState state_ = WorkerState::kStarting;
  bool alive_ = false;
  Time started_at_ = 0;
  Duration startup_ = 0;
  bool term_delivered_ = false;  // a TERM or INT reached the worker: "quiet" means draining
  std::map<JobId, Held> held_;
  std::vector<bool> slots_;  // for the attempt records' slot numbers
  int concurrency_ = 0;      // the worker's slots, as it registered
  Responder waiting_;        // a /wait long-poll not yet answered
  int wait_count_ = 0;       // its count: the jobs to carry in its answer (0: none)
  TimerId wait_timer_;
  std::uint64_t waits_ = 0;  // waits served: a posted answer is for the wait it counted
};

}  // namespace drainsim
