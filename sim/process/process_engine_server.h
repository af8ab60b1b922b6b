// ProcessEngineServer: the process engine's side of a run. It serves the backend's worker
// endpoints over HTTP on 127.0.0.1 (docs/worker-protocol.md), makes a ChildProcessProxy for
// every container start, routes each request to the process its worker_id names, and
// reaps the processes: when one ends, and all that are left when the server shuts down.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "engine/asio_runtime.h"
#include "model/process_handle.h"
#include "model/warning.h"
#include "process/child_process.h"
#include "process/child_process_proxy.h"
#include "process/http_server.h"
#include "process/worker_log.h"

namespace drainsim {

struct ProcessEngineOptions {
  std::string worker_binary;  // drainsim-worker
  std::string worker_cmd;     // a shell command line that replaces it, when not empty
  std::string output;         // file for the workers' stdout and stderr; empty: /dev/null
  std::uint64_t output_cap = WorkerLog::kDefaultCap;  // bytes of `output` per run; 0: no cap
  // Told a warning as soon as it is found (the first worker that ends unregistered), on
  // the models' strand.
  std::function<void(const std::string&)> notice;
};

class ProcessEngineServer {
 public:
  // `rt` is the models' strand, on `io`.
  ProcessEngineServer(StrandRuntime& rt, boost::asio::io_context& io, const Scenario& scenario,
                      Backend& backend, Recorder& recorder, const ProcessEngineOptions& options);
  ~ProcessEngineServer();

  ProcessFactory factory();
  // Called on the models' strand after each request has been served.
  void set_after_request(std::function<void()> fn) { after_request_ = std::move(fn); }
  // Why the run cannot go on (the worker program cannot be run), or empty. Models' strand.
  const std::string& fatal() const { return fatal_; }
  // Stops serving, then SIGKILLs and reaps every process still running and every
  // descendant of theirs (child_process.h); returns how many workers were running.
  // Idempotent.
  int shut_down();
  // `worker_unregistered` when some worker process never registered: it ended without
  // registering, or ran kRegisterWithin of real time or more without. Call on the models'
  // strand, or once it has stopped, before shut_down().
  std::optional<Warning> registration_warning() const;
  // A worker running unregistered this long (real time) counts as never registering.
  static constexpr double kRegisterWithinS = 2.0;

 private:
  void serve(const HttpRequest& request, const Responder& respond);
  void on_exit(pid_t pid, ChildExit how);

  StrandRuntime& rt_;
  std::function<void(const std::string&)> notice_;
  std::unique_ptr<WorkerLog> log_;  // before the server: requests never outlive it
  HttpServer server_;
  Reaper reaper_;
  std::unique_ptr<ProxyContext> context_;
  std::map<std::string, ChildProcessProxy*> by_name_;  // owned by the platform
  std::vector<int> starts_;                            // per pod, for worker names
  std::function<void()> after_request_;
  std::string fatal_;
  int ended_unregistered_ = 0;
  std::string first_unregistered_;  // how the first ended, for the warning
  int first_unregistered_code_ = 0;
};

}  // namespace drainsim
