#include "run/real_engine.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/asio/signal_set.hpp>

#include "engine/asio_runtime.h"
#include "io/adapter_events.h"
#include "model/fate_rule.h"
#include "process/broker.h"
#include "process/real_system.h"
#include "run/models.h"
#include "run/real_end.h"
#include "run/real_replay.h"

namespace drainsim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Seconds as the adapters read them: a decimal number.
std::string seconds(Duration d) { return fmt::format("{}", to_seconds(d)); }

// The program is on PATH (or, given a path, can be run).
bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (access((fs::path(dir.empty() ? "." : dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// The broker the system needs. Throws SystemMissing naming what to install when a program,
// the Node modules or the broker are missing.
BrokerKind check_installed(const SystemManifest& m) {
  const std::string install = fmt::format(
      "install {}", m.packages.empty() ? std::string("its packages")
                                       : fmt::format("{}", fmt::join(m.packages, ", ")));
  for (const auto* argv : {&m.worker, &m.enqueue, &m.inspect}) {
    if (!on_path(argv->front())) {
      throw SystemMissing(fmt::format("the real {} needs `{}`, which is not installed: {}",
                                      m.system, argv->front(), install));
    }
  }
  if (fs::exists(fs::path(m.dir) / "package.json") &&
      !fs::exists(fs::path(m.dir) / "node_modules")) {
    throw SystemMissing(fmt::format(
        "the real {}'s Node modules are not installed: run `npm ci` in {}", m.system, m.dir));
  }
  const std::optional<BrokerKind> kind = from_name<BrokerKind>(m.broker);
  if (!kind) {
    throw SystemMissing(fmt::format(
        "the real {} needs a {} broker, which this drainsim cannot start", m.system, m.broker));
  }
  return *kind;
}

std::string option_env_name(const std::string& name) {
  std::string out = "DRAINSIM_OPT_";
  for (char c : name) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string option_text(const OptionValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const Duration* d = std::get_if<Duration>(&v)) return seconds(*d);
  return std::to_string(std::get<int>(v));
}

// The system's programs as its manifest and the scenario say: the argv with the
// placeholders filled in, the environment (adapters/README.md), the events file.
RealSystemOptions system_options(const Scenario& s, const SystemManifest& m, const Broker& broker,
                                 const std::string& events) {
  const WorkerConfig& w = s.worker;
  const std::map<std::string, std::string> values = {
      {"dir", m.dir},
      {"broker_url", broker.url()},
      {"concurrency", std::to_string(w.concurrency)},
      {"grace_period", format_grace(w.grace_period, seconds)},
      {"queue", s.workload.queue},
      {"max_attempts", std::to_string(s.backend.retry.max_attempts)},
      {"retries", std::to_string(s.backend.retry.max_attempts - 1)},
      {"events", events},
      {"visibility_timeout", seconds(s.backend.visibility_timeout)},
      {"heartbeat_interval", seconds(w.heartbeat_interval)},
      {"worker", "{worker}"},  // each worker process's own name, pod-N: filled at its start
  };
  const std::string where = m.dir + "/system.json";
  RealSystemOptions o;
  for (const auto& [list, argv] :
       {std::pair{&o.worker, &m.worker}, {&o.enqueue, &m.enqueue}, {&o.inspect, &m.inspect}}) {
    for (const std::string& a : *argv) list->push_back(expand(a, values, where));
  }
  const char* path = std::getenv("PATH");
  o.env = {std::string("PATH=") + (path ? path : "/usr/local/bin:/usr/bin:/bin"),
           "HOME=" + broker.directory(),
           "LANG=C.UTF-8",
           "DRAINSIM_BROKER_URL=" + broker.url(),
           "DRAINSIM_EVENTS=" + events,
           "DRAINSIM_CONCURRENCY=" + values.at("concurrency"),
           "DRAINSIM_GRACE_PERIOD=" + values.at("grace_period"),
           "DRAINSIM_QUEUE=" + s.workload.queue,
           "DRAINSIM_MAX_ATTEMPTS=" + values.at("max_attempts"),
           "DRAINSIM_CANCEL_LATENCY=" + seconds(s.workload.cancel.latency)};
  for (const auto& [name, value] : w.options) {
    o.env.push_back(option_env_name(name) + "=" + option_text(value));
  }
  for (const auto& [name, value] : m.env)
    o.env.push_back(name + "=" + expand(value, values, where));
  o.events = events;
  o.logs = broker.directory();
  o.pid1_shell = s.platform.pid1_shell;
  o.broker_pid = broker.pid();
  o.broker_name = broker.program();
  o.broker_log = broker.log_path();
  return o;
}

// Where the arrivals go: each job is pushed through the system's client as a line
// "JOB DURATION_S [FAIL_1 ...] [class=NAME attempts=N [serial=true] [singleton=true]]", the
// attempts that fail, and when, drawn as the simulated worker draws them (uniformly in the
// attempt's run), then, in a workload with classes, the job's class and what it asks of
// the system; the pushes are kept for the replay.
JobSink push_into(RealSystem& system, const Scenario& s, Runtime& rt, std::vector<Pushed>& pushed) {
  Rng& behaviour = rt.rng(Stream::kJobBehaviour);
  return [&system, &s, &rt, &pushed, &behaviour](const JobSpec& spec) {
    const JobId id = pushed.size();
    pushed.push_back({id, rt.now(), spec});
    const WorkloadConfig& w = s.workload;
    const double failure_rate = w.failure_rate_of(spec.job_class);
    const int attempts = w.classes.empty() ? s.backend.retry.max_attempts
                                           : w.classes[spec.job_class].retry.max_attempts;
    std::string line = fmt::format("{} {}", id, seconds(spec.work));
    std::string fails;
    bool any = false;
    for (int k = 0; k < attempts && failure_rate > 0; ++k) {
      if (behaviour.bernoulli(failure_rate)) {
        fails +=
            " " +
            seconds(static_cast<Duration>(static_cast<double>(spec.work) * behaviour.uniform()));
        any = true;
      } else {
        fails += " -";
      }
    }
    if (any) line += fails;
    if (!w.classes.empty()) {
      const JobClass& c = w.classes[spec.job_class];
      line += fmt::format(" class={} attempts={}{}{}", c.name, attempts,
                          c.serial ? " serial=true" : "", c.singleton ? " singleton=true" : "");
    }
    system.enqueue(line);
  };
}

// The run's files (the events, the programs' logs; the broker's socket is not one) copied
// into `keep`.
void keep_files(const std::string& dir, const std::string& keep) {
  std::error_code ec;
  fs::create_directories(keep, ec);
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    if (f.is_regular_file()) {
      fs::copy_file(f.path(), fs::path(keep) / f.path().filename(),
                    fs::copy_options::overwrite_existing, ec);
    }
  }
}

// The rule check of the attempts the adapter reported.
RuleCheck check_rule(const Scenario& s, const Platform& platform, const std::vector<Pushed>& pushed,
                     const AdapterReport& report) {
  std::map<JobId, Duration> work;
  for (const Pushed& p : pushed) work[p.id] = p.spec.work;
  RuleCheck out;
  const std::vector<FateCheck> fates =
      check_fates(s, platform.pods(), platform.processes(), report.attempts,
                  [&](JobId job) { return work[job]; });
  out.checked = fates.size();
  for (const FateCheck& f : fates) {
    if (f.predicted != f.actual) out.mismatches.push_back(f);
  }
  return out;
}

// The results document's "real" object (results/README.md).
json real_json(const SystemManifest& m, const Inspection& last, int repeat, const RuleCheck& rule,
               const std::vector<std::string>& not_measured) {
  json mismatches = json::array();
  for (const FateCheck& f : rule.mismatches) {
    mismatches.push_back({{"job", f.job},
                          {"attempt", f.attempt},
                          {"pod", fmt::format("pod-{}", f.pod)},
                          {"at_s", to_seconds(f.at)},
                          {"remaining_s", to_seconds(f.remaining)},
                          {"predicted", f.predicted},
                          {"actual", f.actual}});
  }
  return {{"system", m.system},
          {"broker", m.broker},
          {"versions", last.versions},
          {"repeat", repeat},
          {"rule_check", {{"checked", rule.checked}, {"mismatches", mismatches}}},
          {"not_measured", not_measured}};
}

}  // namespace

std::string adapters_folder(const RealOptions& options) {
  if (!options.adapters.empty()) return options.adapters;
  if (const char* env = std::getenv("DRAINSIM_ADAPTERS"); env && *env) return env;
  // Installed (cmake --install, the Debian package): PREFIX/bin/drainsim finds
  // PREFIX/share/drainsim/adapters.
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path().parent_path() / "share" / "drainsim" / "adapters";
    if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
  }
  return DRAINSIM_ADAPTERS_DIR;
}

SystemManifest find_system(const RealOptions& options) {
  const std::string folder = adapters_folder(options);
  const std::map<std::string, SystemManifest> all = read_manifests(folder);
  const auto it = all.find(options.system);
  if (it != all.end()) return it->second;
  std::string known;
  for (const auto& [name, m] : all) known += (known.empty() ? "" : ", ") + name;
  throw RunError(fmt::format("no real system \"{}\" in {}: expected one of {}", options.system,
                             folder, known.empty() ? "(none)" : known));
}

RunOutput run_real(const Scenario& s, const RunOptions& o) {
  const SystemManifest manifest = find_system(o.real);
  if (const std::vector<std::string> bad = not_honoured(s, manifest); !bad.empty()) {
    std::string text = fmt::format("the real {} cannot run this scenario:", manifest.system);
    for (const std::string& line : bad) text += "\n  " + line;
    throw RunError(text);
  }
  const BrokerKind kind = check_installed(manifest);
  std::unique_ptr<Broker> broker;
  try {
    broker = std::make_unique<Broker>(kind);
  } catch (const BrokerError& e) {
    throw SystemMissing(e.what());
  }
  const std::string dir = broker->directory();
  if (o.real.progress) {
    o.real.progress(fmt::format("{} on a throwaway {} at {} (folder {})", manifest.system,
                                manifest.broker, broker->url(), dir));
  }
  const std::string events = dir + "/events.jsonl";

  AsioRuntime asio(s.seed, 1.0, 2);  // real time
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  RealSystem system(*rt, asio.context(), system_options(s, manifest, *broker, events));
  std::vector<Pushed> pushed;
  Models models(
      *rt, s, o, [&](Backend&, Recorder&) { return system.factory(); },
      push_into(system, s, *rt, pushed));
  const std::function<bool()> idle = [&] {
    return models.workload.done() && models.script.done() && !models.platform.busy() &&
           system.open_attempts() == 0 &&
           static_cast<std::int64_t>(system.enqueued().size() + system.refused().size()) ==
               system.written();
  };
  RealEnd ending(*rt, system, idle, s.duration + s.settle, manifest.system);
  system.set_on_change([&] { ending.check(); });
  rt->set_after_each([&] { ending.check(); });
  boost::asio::signal_set stop_signals(asio.context(), SIGINT, SIGTERM);
  std::function<void()> on_stop_signal = [&] {
    stop_signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      rt->post([&] { ending.interrupt(); });
      on_stop_signal();  // and the next one
    });
  };
  on_stop_signal();
  asio.start();
  const double origin = unix_now();
  rt->post([&] {
    try {
      system.start();
    } catch (const std::exception& e) {
      system.fail("enqueuer", e.what());
      return;
    }
    models.start();
    ending.start();
    ending.check();
  });
  const auto [ended_at, early] = ending.wait();
  boost::system::error_code ignored;
  stop_signals.cancel(ignored);
  asio.stop();
  const int left = system.shut_down();
  if (!o.real.keep.empty()) keep_files(dir, o.real.keep);
  for (const std::string& end : system.outside_ends()) {
    models.recorder.warning(
        "worker_killed_outside",
        fmt::format("{}, a signal drainsim did not send (its own crash, or another "
                    "process's kill): the platform restarted it as it would any crash",
                    end));
  }

  for (const auto& [job, at] : system.refused()) {
    if (job < pushed.size()) pushed[job].refused = true;
  }
  std::map<pid_t, ProcessEnding> endings;
  for (const RealEnding& e : system.endings()) endings[e.pid] = {e.at, e.signalled};
  std::ifstream in(events);
  const AdapterReport report = read_adapter_events(in, events, origin, endings);
  const Inspection audited = replay(models.recorder, pushed, system.enqueued(), report, ending.last,
                                    ended_at, manifest.reports_available);
  Interruption stopped;
  if (ending.interrupted) {
    stopped.by = "signal";
  } else if (const std::optional<RealFailure>& f = system.failure()) {
    stopped = {"failure", 0, f->component, f->at, f->reason};
  }
  const RunEnding ended{ended_at, early, rt->events_run(), stopped};
  return models.finish(ended, Engine::kReal, InspectedBackend(audited), [&](RunOutput& out) {
    out.processes_left = left;
    out.rule_check = check_rule(s, models.platform, pushed, report);
    // What the system cannot tell, so the run does not measure it.
    if (!manifest.reports_available) {
      for (const char* group :
           {"orphan_recovery_delay_s", "requeue_delay_s", "backend_recovery_delay_s"}) {
        out.not_measured.push_back(group);
      }
    }
    out.results["real"] =
        real_json(manifest, ending.last, o.real.repeat, *out.rule_check, out.not_measured);
  });
}

}  // namespace drainsim
