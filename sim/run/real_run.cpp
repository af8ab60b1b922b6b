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

// Where the broker holds each job at the end, by the inspector.
struct Inspection {
  json versions = json::object();
  std::map<JobId, std::string> jobs;  // available, scheduled, active, completed, discarded
};

Inspection parse_inspection(const std::string& text, const std::string& system) {
  const json doc = json::parse(text, nullptr, false);
  const std::string where = fmt::format("the {} inspector's output", system);
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_object()) {
    throw RunError(fmt::format("{} is not {{\"versions\": ..., \"jobs\": {{...}}}}: {}", where,
                               text.substr(0, 300)));
  }
  Inspection out;
  out.versions = doc.value("versions", json::object());
  for (const auto& [id, state] : doc["jobs"].items()) {
    const std::optional<JobId> job = parse_number<JobId>(id);
    const std::string s = state.is_string() ? state.get<std::string>() : "";
    if (!job || (s != "available" && s != "scheduled" && s != "active" && s != "completed" &&
                 s != "discarded")) {
      throw RunError(
          fmt::format("{}: jobs.{}: expected a job id and one of available, "
                      "scheduled, active, completed, discarded, got {}",
                      where, id, state.dump()));
    }
    out.jobs[*job] = s;
  }
  return out;
}

// Work the broker still has to hand out or finish.
bool holds_work(const Inspection& i) {
  return std::any_of(i.jobs.begin(), i.jobs.end(), [](const auto& j) {
    return j.second == "available" || j.second == "scheduled" || j.second == "active";
  });
}

// The audit's view of the broker: the jobs it still has to run (kept history aside).
class InspectedBackend final : public BackendView {
 public:
  explicit InspectedBackend(const Inspection& i) {
    for (const auto& [job, state] : i.jobs) {
      if (state == "available") jobs_[job] = JobState::kAvailable;
      if (state == "scheduled") jobs_[job] = JobState::kScheduled;
      if (state == "active") jobs_[job] = JobState::kActive;
    }
  }
  std::optional<JobState> job_state(std::uint32_t, JobId id) const override {
    const auto it = jobs_.find(id);
    return it == jobs_.end() ? std::nullopt : std::optional(it->second);
  }
  std::size_t live_jobs() const override { return jobs_.size(); }

 private:
  std::map<JobId, JobState> jobs_;
};

// A job as it was pushed.
struct Pushed {
  JobId id = 0;
  Time written = 0;
  JobSpec spec;
};

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
  void interrupt() {
    interrupted = !finished_;
    finish(false, "");
  }
  void on_timer(std::uint32_t, std::uint64_t) override { check(); }
  std::pair<Time, bool> wait() { return done_.get_future().get(); }

  Inspection last;
  bool have_last = false;
  bool interrupted = false;
  std::string failure;

 private:
  // `early`: only to see whether the broker is done; the run goes on if it is not.
  void inspect(bool early) {
    inspecting_ = true;
    fleet_.inspect([this, early](const std::string& output, bool ok) {
      inspecting_ = false;
      if (finished_) return;
      if (!ok) {
        return finish(false, fmt::format("the {} inspector failed: {}", system_, output));
      }
      try {
        last = parse_inspection(output, system_);
        have_last = true;
      } catch (const RunError& e) {
        return finish(false, e.what());
      }
      if (!early) return finish(false, "");
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

// The adapter's attempts and the pushes replayed into `recorder` in time order, then
// each unfinished job settled by where the broker holds it.
void replay(Recorder& recorder, const std::vector<Pushed>& pushed,
            const std::map<std::uint64_t, Time>& confirmed, AdapterReport report,
            const Inspection& inspection, Time ended_at) {
  // A system that hands a job back before the job's body hears of it (Sidekiq requeues,
  // then raises Sidekiq::Shutdown) may start it again elsewhere before the interrupted
  // attempt reports its end: that attempt ended, for the job, when the next one started.
  std::map<JobId, std::vector<Time>> starts;
  for (const auto* list : {&report.attempts, &report.in_flight}) {
    for (const AttemptRecord& a : *list) starts[a.job].push_back(a.start);
  }
  for (AttemptRecord& a : report.attempts) {
    if (a.outcome != Outcome::kInterrupted) continue;
    for (Time t : starts[a.job]) {
      if (t > a.start && t < a.end) a.end = t;
    }
  }
  struct Job {
    std::uint32_t ledger = 0;
    std::uint32_t claims = 0;
    bool available = false;  // the ledger's state is available
    bool claimed = false;    // the ledger's state is active: an attempt started, not done
    bool completed = false;
    Time last_start = -1, last_end = -1;
    Outcome last = Outcome::kCompleted;
    int attempts = 0;
  };
  std::map<JobId, Job> jobs;
  enum Kind { kEnqueue, kEnd, kStart };
  struct Step {
    Time at;
    Kind kind;
    JobId job;
    const AttemptRecord* attempt;
  };
  std::vector<Step> steps;
  std::map<JobId, Time> first_start;
  for (const auto* list : {&report.attempts, &report.in_flight}) {
    for (const AttemptRecord& a : *list) {
      steps.push_back({a.start, kStart, a.job, &a});
      if (list == &report.attempts) steps.push_back({a.end, kEnd, a.job, &a});
      const auto [it, added] = first_start.emplace(a.job, a.start);
      if (!added) it->second = std::min(it->second, a.start);
    }
  }
  for (const Pushed& p : pushed) {
    // Enqueued when the enqueuer said so, or when a worker started it if that was seen
    // first (the worker's event can beat the enqueuer's line to drainsim).
    const auto c = confirmed.find(p.id);
    Time at = c == confirmed.end() ? p.written : c->second;
    if (const auto f = first_start.find(p.id); f != first_start.end()) at = std::min(at, f->second);
    steps.push_back({at, kEnqueue, p.id, nullptr});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.at != b.at ? a.at < b.at : a.kind < b.kind;
  });
  // The latest start of each job, to know whether a completion is its last word.
  std::map<JobId, Time> latest_start;
  for (const Step& s : steps) {
    if (s.kind == kStart) latest_start[s.job] = std::max(latest_start[s.job], s.at);
  }
  std::map<const AttemptRecord*, std::pair<Lease, int>> open;  // lease, slot
  std::map<WorkerId, std::vector<bool>> slots;                 // by process: the slots in use
  for (const Step& s : steps) {
    if (s.kind == kEnqueue) {
      Job& j = jobs[s.job];
      j.ledger = recorder.job_enqueued(s.job, s.at, static_cast<std::uint32_t>(s.job));
      recorder.job_available(j.ledger, s.at);
      j.available = true;
      continue;
    }
    const auto it = jobs.find(s.job);
    if (it == jobs.end()) {
      recorder.audit_error(
          fmt::format("job {}: the adapter reports an attempt of a job drainsim "
                      "never pushed",
                      s.job));
      continue;
    }
    Job& j = it->second;
    AttemptRecord a = *s.attempt;
    std::vector<bool>& used = slots[a.worker];
    if (s.kind == kStart) {
      if (!j.available) recorder.job_available(j.ledger, s.at);
      recorder.job_claimed(j.ledger, s.at);
      j.available = false;
      j.claimed = true;
      Lease lease;
      lease.id = s.job;
      lease.handle = static_cast<std::uint32_t>(s.job);
      lease.ledger = j.ledger;
      lease.attempt = a.attempt;
      lease.claim = ++j.claims;
      // Its slot: the lowest free one of its process.
      const auto free = std::find(used.begin(), used.end(), false);
      const int slot = static_cast<int>(free - used.begin());
      if (free == used.end()) {
        used.push_back(true);
      } else {
        *free = true;
      }
      open[s.attempt] = {lease, slot};
      recorder.attempt_started(lease, s.at);
      j.last_start = s.at;
      ++j.attempts;
      continue;
    }
    const auto started = open.find(s.attempt);
    if (started == open.end()) continue;  // its start was refused above
    const auto [lease, slot] = started->second;
    open.erase(started);
    a.slot = slot;
    used[static_cast<std::size_t>(slot)] = false;
    recorder.attempt_ended(lease, a, 0);
    j.last_end = s.at;
    j.last = a.outcome;
    if (a.outcome == Outcome::kCompleted || a.outcome == Outcome::kFailed) j.claimed = false;
    if (a.outcome == Outcome::kCompleted) {
      j.completed = true;
      if (latest_start[s.job] <= a.start) recorder.job_completed(j.ledger, s.at);
    } else if (a.outcome == Outcome::kFailed) {
      recorder.job_scheduled(j.ledger, s.at);  // a retry waits, unless it is settled below
    }
  }
  // Settle every job by the broker's word.
  std::vector<JobId> held_unstarted;
  for (auto& [id, j] : jobs) {
    const auto held = inspection.jobs.find(id);
    const std::string state = held == inspection.jobs.end() ? "" : held->second;
    if (j.completed) {
      if (state == "available" || state == "scheduled" || state == "active") {
        recorder.audit_error(
            fmt::format("job {}: completed at {}s but the broker still holds it "
                        "({})",
                        id, to_seconds(j.last_end), state));
      }
      continue;
    }
    const Time at =
        std::max(j.last_end, j.last_start) >= 0 ? std::max(j.last_end, j.last_start) : ended_at;
    if (state == "available") {
      if (!j.available) recorder.job_available(j.ledger, ended_at);
    } else if (state == "scheduled") {
      recorder.job_scheduled(j.ledger, ended_at);
    } else if (state == "active") {
      // Held by a worker (an attempt in flight), or locked by one that died: stuck. A
      // worker may also hold a job it has not started (Celery's prefetched messages).
      if (!j.claimed) {
        recorder.job_claimed(j.ledger, ended_at);
        held_unstarted.push_back(id);
      }
    } else if (state == "discarded") {
      recorder.job_discarded(
          j.ledger, at, j.last == Outcome::kFailed ? ErrorKind::kHandler : ErrorKind::kShutdown, 0);
    } else if (state == "completed") {
      recorder.audit_error(
          fmt::format("job {}: the broker says completed but no attempt of it "
                      "completed",
                      id));
    } else if (j.attempts == 0) {
      recorder.job_lost(j.ledger, at, "never started, and the broker holds it no more");
    } else {
      recorder.job_lost(j.ledger, at,
                        fmt::format("its attempt {} ended {}, and the broker holds it no more",
                                    j.attempts, to_string(j.last)));
    }
  }
  if (!held_unstarted.empty()) {
    recorder.warning(
        fmt::format("jobs {}: held by a worker at the end (the broker says active) though none "
                    "of their attempts was running: fetched ahead (prefetched), "
                    "not started",
                    fmt::join(held_unstarted, ", ")));
  }
}

}  // namespace

std::string adapters_folder(const RunOptions& options) {
  if (!options.adapters.empty()) return options.adapters;
  if (const char* env = std::getenv("DRAINSIM_ADAPTERS"); env && *env) return env;
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
         "DRAINSIM_MAX_ATTEMPTS=" + values.at("max_attempts")};
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
  Recorder recorder(o.timeline);
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
  stop_signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) rt->post([&] { ending.interrupt(); });
  });
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
  replay(recorder, pushed, fleet.enqueued(), report, ending.last, ended_at);
  out.summary = summarize(recorder, platform, recorder.finish(InspectedBackend(ending.last)),
                          ended_at, early);
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
  if (recorder.timeline()) {
    auto timeline = std::make_shared<const Timeline>(recorder.take_timeline());
    if (o.stream_timeline) {
      out.timeline = std::move(timeline);
    } else {
      out.results["timeline"] = timeline_json(*timeline);
    }
  }
  out.hash = stamp_hash(out.results, out.timeline.get());
  return out;
}

}  // namespace drainsim
