#include "process/process_engine_server.h"

#include <unistd.h>

#include <fmt/format.h>

extern char** environ;

namespace drainsim {

using nlohmann::json;

namespace {

constexpr std::string_view kPrefix = "/ojs/v1/workers/";

HttpResponse error_response(int status, const std::string& code, const std::string& message) {
  return HttpResponse{status, json{{"error", {{"code", code}, {"message", message}}}}.dump()};
}

}  // namespace

ProcessEngineServer::ProcessEngineServer(StrandRuntime& rt, boost::asio::io_context& io,
                                         const Scenario& scenario, Backend& backend,
                                         Recorder& recorder, const FleetOptions& options)
    : rt_(rt),
      server_(io, [this](HttpRequest request, Responder respond) { serve(request, respond); }),
      reaper_(io.get_executor(), [this](pid_t pid, ChildExit how) {
        rt_.post([this, pid, how] { on_exit(pid, how); });
      }) {
  const std::uint16_t port = server_.listen();
  SpawnSpec program;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).substr(0, 4) != "OJS_") program.env.emplace_back(*e);
  }
  program.env.push_back(fmt::format("DRAINSIM_RUN={}", getpid()));  // finds leftovers in tests
  program.output = options.output;
  std::string shell;
  if (options.worker_cmd.empty()) {
    program.argv = {options.worker_binary};
    shell = shell_quote(options.worker_binary);
  } else {
    program.argv = {"/bin/sh", "-c", "exec " + options.worker_cmd};
    shell = options.worker_cmd;
  }
  context_.reset(new FleetContext{rt, backend, recorder, reaper_, scenario, options.time_scale,
                                  std::move(program), fmt::format("http://127.0.0.1:{}", port),
                                  std::move(shell), [this](std::string why) {
                                    if (fatal_.empty()) fatal_ = std::move(why);
                                    if (after_request_) after_request_();
                                  }});
}

ProcessEngineServer::~ProcessEngineServer() { shut_down(); }

ProcessFactory ProcessEngineServer::factory() {
  return [this](int pod, ProcessObserver& observer) -> std::unique_ptr<ProcessHandle> {
    if (starts_.size() <= static_cast<std::size_t>(pod)) starts_.resize(pod + 1, 0);
    const std::string name = fmt::format("pod-{}.{}", pod, ++starts_[pod]);
    auto process = std::make_unique<ChildProcessProxy>(*context_, observer, pod, name);
    by_name_[name] = process.get();
    return process;
  };
}

void ProcessEngineServer::serve(const HttpRequest& request, const Responder& respond) {
  // Parsed on the connection's strand; served on the models'.
  if (request.method != "POST" || request.target.substr(0, kPrefix.size()) != kPrefix) {
    respond(error_response(404, "not_found",
                           fmt::format("no endpoint {} {}", request.method, request.target)));
    return;
  }
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    respond(error_response(400, "invalid_request", "the body is not a JSON object"));
    return;
  }
  const auto id = body.find("worker_id");
  if (id == body.end() || !id->is_string()) {
    respond(error_response(400, "invalid_request", "'worker_id' is missing or not a string"));
    return;
  }
  rt_.post([this, op = request.target.substr(kPrefix.size()), body = std::move(body), respond] {
    const std::string name = body["worker_id"].get<std::string>();
    const auto it = by_name_.find(name);
    ChildProcessProxy* process = it == by_name_.end() ? nullptr : it->second;
    if (process == nullptr || process->pid() < 0) {
      respond(error_response(404, "not_found", fmt::format("no worker '{}'", name)));
    } else {
      try {
        process->handle(op, body, respond);
      } catch (const RequestError& e) {
        respond(error_response(e.status, e.code, e.message));
      }
    }
    if (after_request_) after_request_();
  });
}

void ProcessEngineServer::on_exit(pid_t pid, ChildExit how) {
  for (const auto& [name, process] : by_name_) {
    if (process->pid() == pid && process->alive()) process->ended(how);
  }
}

int ProcessEngineServer::shut_down() {
  server_.stop();
  return reaper_.kill_all();
}

}  // namespace drainsim
