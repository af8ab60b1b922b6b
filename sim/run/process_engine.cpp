#include "run/process_engine.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "engine/asio_runtime.h"
#include "process/process_engine_server.h"
#include "run/models.h"
#include "run/paced_end.h"

namespace drainsim {

namespace {

std::string default_worker_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("drainsim-worker") : (self.parent_path() / "drainsim-worker").string();
}

// Whether a job drawn from `d` can run `limit` or longer: the unbounded distributions can.
bool can_last(const DurationDistribution& d, Duration limit) {
  using Kind = DurationDistribution::Kind;
  switch (d.kind) {
    case Kind::kConstant:
      return d.value >= limit;
    case Kind::kUniform:
      return d.max >= limit;
    case Kind::kEmpirical:
    case Kind::kSequence:
      for (Duration v : d.values) {
        if (v >= limit) return true;
      }
      for (const auto& b : d.histogram) {
        if (b.le >= limit) return true;
      }
      return false;
    case Kind::kExponential:
    case Kind::kLognormal:
    case Kind::kPareto:
      return true;
  }
  return true;
}

// Throws RunError when the scenario asks what the process engine's workers cannot do.
void check_expressible(const Scenario& s, const ProcessOptions& o) {
  if (o.worker_cmd.empty() && s.worker.shutdown.fails_at_lease_expiry) {
    bool can = can_last(s.workload.job_duration, s.backend.visibility_timeout);
    for (const JobClass& c : s.workload.classes) {
      can = can || can_last(c.job_duration, s.backend.visibility_timeout);
    }
    if (can) {
      throw RunError(fmt::format(
          "backend.visibility_timeout: profile {} fails a job still running when its lease "
          "expires and lets the handler run on, which the OJS HTTP binding cannot express, and "
          "a job of this workload can run {} or longer: run it on the virtual or realtime "
          "engine, or set a visibility_timeout above the longest job",
          s.worker.profile, format_duration(s.backend.visibility_timeout)));
    }
  }
  if (o.worker_cmd.empty() &&
      s.worker.shutdown.at_deadline == ShutdownBehaviour::AtDeadline::kRequeue) {
    throw RunError(fmt::format(
        "profile {} hands unfinished jobs back to the queue at the deadline, which the OJS "
        "HTTP binding cannot express: run it on the virtual or realtime engine, or bring your "
        "own worker with --worker-cmd",
        s.worker.profile));
  }
  if (o.worker_cmd.empty() && s.worker.shutdown.reserve_per_slot > 0) {
    throw RunError(fmt::format(
        "profile {} fetches jobs ahead and acknowledges each as it starts it, which the OJS "
        "HTTP binding cannot express: set worker.options.disable_prefetch, run it on the "
        "virtual or realtime engine, or bring your own worker with --worker-cmd",
        s.worker.profile));
  }
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    if (s.events[i].kind == ScenarioEvent::Kind::kOomKillChild) {
      throw RunError(fmt::format(
          "events[{}]: oom_kill_child takes a pool child, and the process engine's workers are "
          "processes with none: run it on the virtual or realtime engine",
          i));
    }
  }
  if (o.worker_cmd.empty() && s.worker.shutdown.late_fetch != ShutdownBehaviour::LateFetch::kNone) {
    throw RunError(fmt::format(
        "profile {} has a fetch still blocked in the store after it stops fetching, which can "
        "take a job then (late_fetch {}), and the OJS HTTP binding cannot express it: run it "
        "on the virtual or realtime engine, or bring your own worker with --worker-cmd",
        s.worker.profile, name_of(s.worker.shutdown.late_fetch)));
  }
}

}  // namespace

RunOutput run_process(const Scenario& s, const RunOptions& o) {
  check_expressible(s, o.process);
  ProcessEngineOptions server_options;
  server_options.worker_binary =
      o.process.worker_binary.empty() ? default_worker_binary() : o.process.worker_binary;
  server_options.worker_cmd = o.process.worker_cmd;
  server_options.output = o.process.worker_log;
  server_options.output_cap = o.process.worker_log_max;
  server_options.notice = o.process.on_warning;
  if (o.process.worker_cmd.empty() && access(server_options.worker_binary.c_str(), X_OK) != 0) {
    throw RunError(fmt::format("cannot run the worker program {}: {}", server_options.worker_binary,
                               strerror(errno)));
  }
  AsioRuntime asio(s.seed, o.paced.time_scale, o.paced.threads);
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  rt->set_tolerance(lateness_tolerance(s));
  std::unique_ptr<ProcessEngineServer> server;
  Models models(*rt, s, o, [&](Backend& backend, Recorder& recorder) {
    try {
      server = std::make_unique<ProcessEngineServer>(*rt, asio.context(), s, backend, recorder,
                                                     server_options);
    } catch (const std::runtime_error& e) {  // the worker log cannot be opened
      throw RunError(e.what());
    }
    return server->factory();
  });
  if (s.workload.checkpointing) {
    models.recorder.warning("no_checkpoints",
                            "the process engine's workers save no checkpoints: every attempt "
                            "starts from scratch");
  }
  PacedEnd ending(*rt, models, o.paced.on_time);
  server->set_after_request([&] {
    if (server->fatal().empty()) {
      ending.check();
    } else {
      ending.failure = server->fatal();
      ending.finish(rt->now(), false);
    }
  });
  const RunEnding ended = ending.run(asio);
  const std::optional<Warning> unregistered = server->registration_warning();
  const int left = server->shut_down();
  if (!ending.failure.empty()) throw RunError(ending.failure);
  warn_if_late(models.recorder, s, {rt.get()});
  const Pacing pacing = warn_if_behind(models.recorder, s, {rt.get()}, false);
  if (unregistered) models.recorder.warning(*unregistered);
  const std::string command =
      o.process.worker_cmd.empty() ? "drainsim-worker" : o.process.worker_cmd;
  return models.finish(ended, Engine::kProcess, [&](RunOutput& out) {
    out.results["run"]["worker_command"] = command;
    out.results["run"]["pacing"] = pacing_json(pacing);
    out.processes_left = left;
  });
}

}  // namespace drainsim
