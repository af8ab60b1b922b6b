// ProcessEngineServer: the process engine's side of a run. It serves the backend's worker
// endpoints over HTTP on 127.0.0.1 (docs/worker-protocol.md), makes a ChildProcessProxy for
// every container start, routes each request to the process its worker_id names, and
// reaps the processes: when one ends, and all that are left when the fleet shuts down.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "engine/asio_runtime.h"
#include "model/process_handle.h"
#include "process/child_process.h"
#include "process/child_process_proxy.h"
#include "process/http_server.h"

namespace drainsim {

struct FleetOptions {
  std::string worker_binary;  // drainsim-worker
  std::string worker_cmd;     // a shell command line that replaces it, when not empty
  std::string output;         // file for the workers' stdout and stderr; empty: /dev/null
  double time_scale = 50;
};

class ProcessEngineServer {
 public:
  // `rt` is the models' strand, on `io`.
  ProcessEngineServer(StrandRuntime& rt, boost::asio::io_context& io, const Scenario& scenario,
                      Backend& backend, Recorder& recorder, const FleetOptions& options);
  ~ProcessEngineServer();

  ProcessFactory factory();
  // Called on the models' strand after each request has been served.
  void set_after_request(std::function<void()> fn) { after_request_ = std::move(fn); }
  // Why the run cannot go on (the worker program cannot be run), or empty. Models' strand.
  const std::string& fatal() const { return fatal_; }
  // Stops serving, then SIGKILLs and reaps every process still running; returns how
  // many there were. Idempotent.
  int shut_down();

 private:
  void serve(const HttpRequest& request, const Responder& respond);
  void on_exit(pid_t pid, ChildExit how);

  StrandRuntime& rt_;
  HttpServer server_;
  Reaper reaper_;
  std::unique_ptr<FleetContext> context_;
  std::map<std::string, ChildProcessProxy*> by_name_;  // owned by the platform
  std::vector<int> starts_;                            // per pod, for worker names
  std::function<void()> after_request_;
  std::string fatal_;
};

}  // namespace drainsim
