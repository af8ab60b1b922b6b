// HttpWorker: the insides of drainsim-worker. A WorkerCore whose port speaks the worker
// endpoints of docs/worker-protocol.md over HTTP and whose job bodies (drainsim.sleep)
// run on a JobRunner. It registers first, then starts the core; POSIX signals are
// handed to the core. When the core exits, the worker waits for the requests still on
// their way (its last NACKs, heartbeat and deregistration) and then reports its exit
// code. If the backend cannot be reached, the worker gives up with exit code 3, so an
// orphaned worker never lingers. Lives on one strand of an AsioRuntime at time scale 1.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/asio_runtime.h"
#include "engine/job_runner.h"
#include "model/worker_core.h"
#include "process/http_client.h"

namespace drainsim {

struct HttpWorkerConfig {
  WorkerConfig worker;  // durations in real time
  std::string name;     // OJS_WORKER_ID
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  JobBody bodies = JobBody::kSleep;
  // DRAINSIM_PID1=1: it stands for its container's PID 1, so a TERM or INT it has no
  // handler for is ignored; otherwise that signal takes its default action (kills it).
  bool pid1 = false;
  // DRAINSIM_STARTUP: the program's start-up, waited out before it registers; a signal
  // before then finds no handler (its default action, as for pid1 above).
  Duration startup = 0;
};

// Reads the configuration from OJS_URL, OJS_WORKER_ID, OJS_QUEUES, OJS_CONCURRENCY,
// OJS_SHUTDOWN_GRACE_PERIOD, OJS_HEARTBEAT_INTERVAL, OJS_POLL_INTERVAL and
// DRAINSIM_JOB_BODY (sleep, spin or timer), DRAINSIM_PID1 (1 or 0), DRAINSIM_STARTUP (a
// duration), DRAINSIM_TIME_SCALE (simulated seconds per real second: the profile's own
// times, given in simulated time, are divided by it); `get` looks a variable up
// (nullptr: unset). Throws std::invalid_argument naming the variable and what was expected.
HttpWorkerConfig worker_config_from_env(const std::function<const char*(const char*)>& get);

class HttpWorker final : public WorkerPort, public TimerTarget {
 public:
  // `on_exit` gets the process's exit code, once, on the strand.
  HttpWorker(StrandRuntime& rt, HttpWorkerConfig config, std::function<void(int)> on_exit);
  ~HttpWorker();

  void start();
  // A POSIX signal arrived. Call on the strand.
  void on_posix_signal(int number);

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

  // TimerTarget: job bodies ending, and the end of the start-up
  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  struct Body {
    Lease lease;
    Duration fail_after = -1;  // the body fails then, when >= 0
    std::uint32_t generation = 0;
    bool running = false;
  };
  using Reply = std::function<void(bool ok, const nlohmann::json& body)>;

  // POSTs to /ojs/v1/workers/<op>; `reply` runs on the strand (ok: a 2xx with a JSON body).
  void send(const std::string& op, nlohmann::json body, Reply reply = {}, bool alone = false);
  // NACKs the job: a ShutdownError or a HandlerError.
  void nack(const Lease& lease, bool shutdown, bool retryable);
  // Appends the jobs of a fetch reply (or a wait's answer) and their fail_after_ms.
  static void read_jobs(const nlohmann::json& reply, std::vector<Lease>& leases,
                        std::vector<Duration>& fail_after);
  // NACKs the jobs a wait's answer carried when the core no longer takes jobs.
  void return_carried_if_stopped();
  void finish_if_quiet();
  void give_up(const std::string& why);
  void register_worker();
  static constexpr std::uint32_t kStarted = 1;  // the start-up's timer (JobRunner's are 100+)

  StrandRuntime& rt_;
  HttpWorkerConfig config_;
  HttpClient client_;
  WorkerCore core_;
  std::unique_ptr<JobRunner> runner_;
  std::vector<Body> bodies_;
  std::vector<Duration> fail_after_;  // of the jobs of the fetch reply being started
  std::vector<Lease> carried_;        // jobs a wait's answer carried, for the core's fetch
  std::vector<Duration> carried_fail_after_;
  std::size_t fetched_index_ = 0;
  std::function<void(int)> on_exit_;
  int exit_code_ = -1;    // set once the core has exited
  bool started_ = false;  // the start-up is over: the core has its signals
  bool reported_ = false;
  int in_flight_ = 0;     // requests sent and not answered, the long-poll aside
  bool waiting_ = false;  // a /wait long-poll is out
  bool rewait_ = false;   // the core asked to wait while one was out
};

}  // namespace drainsim
