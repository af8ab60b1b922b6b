// ProcessHandle: the platform's hold on one worker process, whatever runs it: a
// simulated SimulatedProcess, or a real child process (the process engine). The platform
// starts it, signals it, reads the worker's state for readiness, and hears through a
// ProcessObserver when the worker's state changes and when the process ends.
#pragma once

#include <functional>
#include <memory>

#include "base/job.h"
#include "model/scenario.h"
#include "model/worker_core.h"

namespace drainsim {

// How a process ended.
enum class ProcessEnd : std::uint8_t {
  kExited,     // by itself, with an exit code
  kSignalled,  // a signal's default action (no handler) killed it
  kKilled,     // SIGKILL
};

// The platform's view of its processes.
class ProcessObserver {
 public:
  virtual void on_worker_state(int pod, WorkerState state) = 0;
  virtual void on_process_end(int pod, ProcessEnd how, int code) = 0;

 protected:
  ~ProcessObserver() = default;
};

// Who a signal is aimed at: the container's PID 1 (a deletion's TERM, `kill -TSTP 1`, a
// container kill) or the worker's own pid (a preStop script that looks it up).
enum class SignalTarget : std::uint8_t { kPid1, kWorker };

class ProcessHandle {
 public:
  virtual ~ProcessHandle() = default;

  virtual void start() = 0;
  // Sends a signal, SIGKILL included. With a shell as PID 1 (`platform.pid1_shell`), what
  // is aimed at PID 1 reaches the shell, which swallows all but SIGKILL; a SIGKILL aimed
  // at PID 1 kills the whole container.
  virtual void deliver(Signal signal, SignalTarget target) = 0;
  // The OOM killer takes one pool child of the worker (ShutdownBehaviour::child_lost): the
  // job that has run longest dies with it, and the process goes on. A worker without pool
  // children has none to take.
  virtual void kill_child() = 0;
  // kNoWorker until the worker has registered with the backend.
  virtual WorkerId worker_id() const = 0;
  // kStarting until the worker has registered.
  virtual WorkerState state() const = 0;
  virtual int active_jobs() const = 0;
};

// Makes the process of one container start of `pod`; it reports to `observer`.
using ProcessFactory =
    std::function<std::unique_ptr<ProcessHandle>(int pod, ProcessObserver& observer)>;

}  // namespace drainsim
