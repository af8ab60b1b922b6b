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
                                         Recorder& recorder, const ProcessEngineOptions& options)
    : rt_(rt),
      notice_(options.notice),
      log_(options.output.empty()
               ? nullptr
               : std::make_unique<WorkerLog>(options.output, options.output_cap)),
      server_(io, [this](HttpRequest request, Responder respond) { serve(request, respond); }),
      reaper_(
          io.get_executor(),
          [this](pid_t pid, ChildExit how) { rt_.post([this, pid, how] { on_exit(pid, how); }); },
          /*adopt=*/true) {
  const std::uint16_t port = server_.listen();
  SpawnSpec program;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).substr(0, 4) != "OJS_") program.env.emplace_back(*e);
  }
  program.env.push_back(fmt::format("DRAINSIM_RUN={}", getpid()));  // finds leftovers in tests
  std::string shell;
  if (options.worker_cmd.empty()) {
    program.argv = {options.worker_binary};
    shell = shell_quote(options.worker_binary);
  } else {
    program.argv = {"/bin/sh", "-c", "exec " + options.worker_cmd};
    shell = options.worker_cmd;
  }
  context_.reset(new ProxyContext{
      rt, backend, recorder, reaper_, scenario, std::move(program),
      fmt::format("http://127.0.0.1:{}", port), std::move(shell),
      [this](std::string why) {
        if (fatal_.empty()) fatal_ = std::move(why);
        if (after_request_) after_request_();
      },
      log_.get(),
      [this](const std::string& name, ChildExit how, Duration lived) {
        if (ended_unregistered_++ > 0) return;
        first_unregistered_ = fmt::format("{} {} {} after {:.0f} ms", name,
                                          how.signalled ? "died of signal" : "exited with code",
                                          how.code, to_seconds(lived) * 1000 / rt_.time_scale());
        first_unregistered_code_ = how.signalled ? 128 + how.code : how.code;
        if (notice_) {
          notice_(
              fmt::format("worker {} {} {} after {:.0f} ms of real time without "
                          "registering with the backend: its pod will restart it "
                          "and do no work (check --worker-cmd)",
                          name, how.signalled ? "died of signal" : "exited with code", how.code,
                          to_seconds(lived) * 1000 / rt_.time_scale()));
        }
      }});
}

std::optional<Warning> ProcessEngineServer::registration_warning() const {
  int running = 0;
  for (const auto& [name, process] : by_name_) {
    if (process->alive() && !process->registered() &&
        to_seconds(rt_.now() - process->started_at() - process->startup()) / rt_.time_scale() >=
            kRegisterWithinS) {
      ++running;
    }
  }
  const int never = ended_unregistered_ + running;
  if (never == 0) return std::nullopt;
  const int started = static_cast<int>(by_name_.size());
  std::string how;
  if (ended_unregistered_ > 0) {
    how = fmt::format("{} ended before registering, the first {}", ended_unregistered_,
                      first_unregistered_);
  }
  if (running > 0) {
    how += fmt::format("{}{} ran {} s of real time or more without registering",
                       how.empty() ? "" : "; ", running, kRegisterWithinS);
  }
  return Warning{"worker_unregistered",
                 fmt::format("{} of {} worker processes never registered with the backend ({}): "
                             "their pods did no work; check --worker-cmd",
                             never, started, how),
                 {{"processes_unregistered", static_cast<double>(never)},
                  {"processes_started", static_cast<double>(started)},
                  {"ended_unregistered", static_cast<double>(ended_unregistered_)},
                  {"running_unregistered", static_cast<double>(running)},
                  {"first_exit_code", static_cast<double>(first_unregistered_code_)}}};
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
  const int left = reaper_.kill_all();
  if (log_) log_->stop();  // every writer is gone: what they wrote is in the pipes
  return left;
}

}  // namespace drainsim
