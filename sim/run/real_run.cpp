#include "run/real_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <boost/asio/signal_set.hpp>

#include "base/parse.h"
#include "engine/asio_runtime.h"
#include "io/adapter_events.h"
#include "io/json_reader.h"
#include "io/results.h"
#include "model/fate_rule.h"
#include "model/platform.h"
#include "model/script.h"
#include "model/workload.h"
#include "process/broker.h"
#include "process/real_fleet.h"
#include "run/real_replay.h"

namespace drainsim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr Duration kInspectEvery = 2 * kSecond;  // while only the broker may hold work

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string seconds(Duration d) { return fmt::format("{}", to_seconds(d)); }

// The program on PATH, or "".
bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (access((fs::path(dir.empty() ? "." : dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
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

// The run's end, on the models' strand: once the run is quiet and the broker holds no
// work, or at duration + settle, or on a fatal error or an interrupt. Its last
// inspection is the one the results use.
class RunEnd final : public TimerTarget {
 public:
  RunEnd(StrandRuntime& rt, RealFleet& fleet, const std::function<bool()>& idle, Time end,
         std::string system)
      : rt_(rt), fleet_(fleet), idle_(idle), end_(end), system_(std::move(system)) {}

  void start() { rt_.schedule(end_, Priority::kBackend, this, 0); }
  void check() {
    if (finished_ || inspecting_) return;
    if (!fleet_.fatal().empty()) return finish(false, fleet_.fatal());
    if (rt_.now() >= end_) return inspect(false);
    if (idle_() && rt_.now() >= next_inspection_) inspect(true);
  }
  // SIGINT or SIGTERM: the run ends once the inspector has given the broker's word on the
  // jobs (or at once if it is asked while one is under way); a second one ends it at once,
  // without that word.
  void interrupt() {
    if (finished_) return;
    if (interrupted) return finish(false, "");
    interrupted = true;
    if (!inspecting_) inspect(false);
  }
  void on_timer(std::uint32_t, std::uint64_t) override { check(); }
  std::pair<Time, bool> wait() { return done_.get_future().get(); }

  Inspection last{{}, {}, /*taken=*/false};  // the inspector's last answer
  bool interrupted = false;
  std::string failure;

 private:
  // `early`: only to see whether the broker is done; the run goes on if it is not.
  void inspect(bool early) {
    inspecting_ = true;
    fleet_.inspect([this, early](const std::string& output, bool ok) {
      inspecting_ = false;
      if (finished_) return;
      // Interrupted, a failed inspection ends the run without the broker's word.
      if (!ok) {
        return finish(
            false, interrupted ? "" : fmt::format("the {} inspector failed: {}", system_, output));
      }
      try {
        last = parse_inspection(output, system_);
      } catch (const RunError& e) {
        return finish(false, interrupted ? "" : e.what());
      }
      if (!early || interrupted) return finish(false, "");
      if (!holds_work(last) && idle_()) return finish(true, "");
      next_inspection_ = rt_.now() + kInspectEvery;
      rt_.schedule(next_inspection_, Priority::kBackend, this, 0);
    });
  }
  void finish(bool early, std::string why) {
    if (finished_) return;
    finished_ = true;
    failure = std::move(why);
    const Time at = early || rt_.now() < end_ ? rt_.now() : end_;
    rt_.halt();
    done_.set_value({at, early});
  }

  StrandRuntime& rt_;
  RealFleet& fleet_;
  const std::function<bool()>& idle_;
  Time end_;
  std::string system_;
  Time next_inspection_ = 0;
  bool inspecting_ = false;
  bool finished_ = false;
  std::promise<std::pair<Time, bool>> done_;
};

}  // namespace

std::string adapters_folder(const RunOptions& options) {
  if (!options.adapters.empty()) return options.adapters;
  if (const char* env = std::getenv("DRAINSIM_ADAPTERS"); env && *env) return env;
  // Installed (cmake --install, the Debian package): PREFIX/bin/drainsim finds
  // PREFIX/share/drainsim/adapters.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed =
        self.parent_path().parent_path() / "share" / "drainsim" / "adapters";
    if (std::filesystem::is_directory(installed, ec)) return installed.lexically_normal().string();
  }
  return DRAINSIM_ADAPTERS_DIR;
}

SystemManifest find_system(const RunOptions& options) {
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
  const SystemManifest system = find_system(o);
  if (const std::vector<std::string> bad = not_honoured(s, system); !bad.empty()) {
    std::string text = fmt::format("the real {} cannot run this scenario:", system.system);
    for (const std::string& line : bad) text += "\n  " + line;
    throw RunError(text);
  }
  const std::string install = fmt::format(
      "install {}", system.packages.empty() ? std::string("its packages")
                                            : fmt::format("{}", fmt::join(system.packages, ", ")));
  for (const auto* argv : {&system.worker, &system.enqueue, &system.inspect}) {
    if (!on_path(argv->front())) {
      throw SystemMissing(fmt::format("the real {} needs `{}`, which is not installed: {}",
                                      system.system, argv->front(), install));
    }
  }
  if (fs::exists(fs::path(system.dir) / "package.json") &&
      !fs::exists(fs::path(system.dir) / "node_modules")) {
    throw SystemMissing(
        fmt::format("the real {}'s Node modules are not installed: run `npm ci` "
                    "in {}",
                    system.system, system.dir));
  }
  const std::optional<BrokerKind> kind = from_name<BrokerKind>(system.broker);
  if (!kind) {
    throw SystemMissing(
        fmt::format("the real {} needs a {} broker, which this drainsim cannot "
                    "start",
                    system.system, system.broker));
  }
  std::unique_ptr<Broker> broker;
  try {
    broker = std::make_unique<Broker>(*kind);
  } catch (const BrokerError& e) {
    throw SystemMissing(e.what());
  }
  const std::string dir = broker->directory();
  if (o.progress) {
    o.progress(fmt::format("{} on a throwaway {} at {} (folder {})", system.system, system.broker,
                           broker->url(), dir));
  }
  const std::string events = dir + "/events.jsonl";
  const WorkerConfig& w = s.worker;
  const std::map<std::string, std::string> values = {
      {"dir", system.dir},
      {"broker_url", broker->url()},
      {"concurrency", std::to_string(w.concurrency)},
      {"grace_period", w.grace_period == kNever ? "forever" : seconds(w.grace_period)},
      {"queue", s.workload.queue},
      {"max_attempts", std::to_string(s.backend.retry.max_attempts)},
      {"retries", std::to_string(s.backend.retry.max_attempts - 1)},
      {"events", events},
      {"visibility_timeout", seconds(s.backend.visibility_timeout)},
      {"worker", "{worker}"},  // each worker process's own name, pod-N: filled at its start
  };
  const std::string where = system.dir + "/system.json";
  RealFleetOptions fleet_options;
  for (const auto& [list, argv] : {std::pair{&fleet_options.worker, &system.worker},
                                   {&fleet_options.enqueue, &system.enqueue},
                                   {&fleet_options.inspect, &system.inspect}}) {
    for (const std::string& a : *argv) list->push_back(expand(a, values, where));
  }
  std::vector<std::string>& env = fleet_options.env;
  const char* path = std::getenv("PATH");
  env = {std::string("PATH=") + (path ? path : "/usr/local/bin:/usr/bin:/bin"),
         "HOME=" + dir,
         "LANG=C.UTF-8",
         "DRAINSIM_BROKER_URL=" + broker->url(),
         "DRAINSIM_EVENTS=" + events,
         "DRAINSIM_CONCURRENCY=" + values.at("concurrency"),
         "DRAINSIM_GRACE_PERIOD=" + values.at("grace_period"),
         "DRAINSIM_QUEUE=" + s.workload.queue,
         "DRAINSIM_MAX_ATTEMPTS=" + values.at("max_attempts"),
         "DRAINSIM_CANCEL_LATENCY=" + seconds(s.workload.cancel.latency)};
  for (const auto& [name, value] : w.options) {
    env.push_back(option_env_name(name) + "=" + option_text(value));
  }
  for (const auto& [name, value] : system.env) {
    env.push_back(name + "=" + expand(value, values, where));
  }
  fleet_options.events = events;
  fleet_options.logs = dir;
  fleet_options.pid1_shell = s.platform.pid1_shell;

  AsioRuntime asio(s.seed, 1.0, 2);
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  RealFleet fleet(*rt, asio.context(), fleet_options);
  const std::shared_ptr<TimelineSpill> spill =
      o.timeline && o.stream_timeline ? std::make_shared<TimelineSpill>() : nullptr;
  Recorder recorder(o.timeline, spill.get());
  Backend backend(*rt, s.backend, s.backend.mechanisms, recorder);  // unused: the broker is real
  Platform platform(*rt, s, backend, recorder, fleet.factory());
  Script script(s, platform);
  std::vector<Pushed> pushed;
  Rng* behaviour = nullptr;
  const WorkloadConfig& load = s.workload;
  Workload workload(*rt, load, s.duration, [&](const JobSpec& spec) {
    const JobId id = pushed.size();
    pushed.push_back({id, rt->now(), spec});
    std::string line = fmt::format("{} {}", id, seconds(spec.work));
    // Which attempts fail, and when: as the simulated worker draws them, uniformly in the
    // attempt's run.
    std::string fails;
    bool any = false;
    for (int k = 0; k < s.backend.retry.max_attempts && load.failure_rate > 0; ++k) {
      if (behaviour->bernoulli(load.failure_rate)) {
        fails +=
            " " +
            seconds(static_cast<Duration>(static_cast<double>(spec.work) * behaviour->uniform()));
        any = true;
      } else {
        fails += " -";
      }
    }
    fleet.enqueue(any ? line + fails : line);
  });
  behaviour = &rt->rng(Stream::kJobBehaviour);
  const std::function<bool()> idle = [&] {
    return workload.done() && script.done() && !platform.busy() && fleet.open_attempts() == 0 &&
           static_cast<std::int64_t>(fleet.enqueued().size()) == fleet.written();
  };
  RunEnd ending(*rt, fleet, idle, s.duration + s.settle, system.system);
  fleet.set_on_change([&] { ending.check(); });
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
  double origin = 0;
  asio.start();
  origin = unix_now();
  rt->post([&] {
    try {
      fleet.start();
    } catch (const std::exception& e) {
      fleet.fail(e.what());
      return;
    }
    platform.start();
    script.start(*rt);
    workload.start();
    ending.start();
    ending.check();
  });
  const auto [ended_at, early] = ending.wait();
  boost::system::error_code ignored;
  stop_signals.cancel(ignored);
  asio.stop();
  const int left = fleet.shut_down();
  if (!o.keep.empty()) {  // the files: the broker's socket is not one
    std::error_code ec;
    fs::create_directories(o.keep, ec);
    for (const auto& f : fs::directory_iterator(dir, ec)) {
      if (f.is_regular_file()) {
        fs::copy_file(f.path(), fs::path(o.keep) / f.path().filename(),
                      fs::copy_options::overwrite_existing, ec);
      }
    }
  }
  if (!ending.failure.empty()) throw RunError(ending.failure);

  RunOutput out;
  out.interrupted = ending.interrupted;
  out.processes_left = left;
  std::map<pid_t, ProcessEnding> endings;
  for (const RealEnding& e : fleet.endings()) endings[e.pid] = {e.at, e.signalled};
  std::ifstream in(events);
  const AdapterReport report = read_adapter_events(in, events, origin, endings);
  const Inspection audited =
      replay(recorder, pushed, fleet.enqueued(), report, ending.last, ended_at);
  out.summary = summarize(s, recorder, platform, recorder.finish(InspectedBackend(audited)),
                          ended_at, early, {ending.interrupted ? "signal" : "", rt->events_run()});
  out.ended_at = ended_at;
  out.events = rt->events_run();
  out.results = build_results(s, out.summary, platform, to_string(Engine::kReal));
  std::map<JobId, Duration> work;
  for (const Pushed& p : pushed) work[p.id] = p.spec.work;
  const std::vector<FateCheck> fates =
      check_fates(s, platform.pods(), platform.processes(), report.attempts,
                  [&](JobId job) { return work[job]; });
  json mismatches = json::array();
  for (const FateCheck& f : fates) {
    if (f.predicted == f.actual) continue;
    mismatches.push_back({{"job", f.job},
                          {"attempt", f.attempt},
                          {"pod", fmt::format("pod-{}", f.pod)},
                          {"at_s", to_seconds(f.at)},
                          {"remaining_s", to_seconds(f.remaining)},
                          {"predicted", f.predicted},
                          {"actual", f.actual}});
  }
  out.results["real"] =
      json{{"system", system.system},
           {"broker", system.broker},
           {"versions", ending.last.versions},
           {"repeat", o.repeat},
           {"rule_check", {{"checked", fates.size()}, {"mismatches", mismatches}}}};
  if (spill) {
    out.timeline = spill;
  } else if (recorder.timeline()) {
    out.results["timeline"] = timeline_json(recorder.take_timeline());
  }
  out.hash = stamp_hash(out.results, out.timeline.get());
  return out;
}

}  // namespace drainsim
