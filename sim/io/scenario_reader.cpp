#include "io/scenario_reader.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "base/input_file.h"
#include "io/overrides.h"
#include "profiles/profile.h"

namespace drainsim {

namespace {

using json = nlohmann::json;

constexpr std::string_view kPodLike = "a pod id like \"pod-0\"";

// "pod-N" as N.
int to_pod(const Context& c, const json& v, const std::string& path) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    const std::string_view digits = std::string_view(s).substr(std::min<std::size_t>(4, s.size()));
    const bool ok =
        s.rfind("pod-", 0) == 0 && !digits.empty() && digits.size() <= 9 &&
        (digits == "0" || digits[0] != '0') &&
        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (ok) return std::stoi(std::string(digits));
  }
  c.expected(path, kPodLike, v);
}

// A count of pods (a non-negative integer) or a whole percentage "N%" with 0 <= N <= 100.
Amount to_amount(const Context& c, const json& v, const std::string& path) {
  const std::optional<std::int64_t> count = as_whole(v);
  if (count && *count >= 0 && *count <= kMaxReplicas) return {false, static_cast<double>(*count)};
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() >= 2 && s.size() <= 4 && s.back() == '%' && (s[0] != '0' || s.size() == 2) &&
        std::all_of(s.begin(), s.end() - 1, [](char ch) { return ch >= '0' && ch <= '9'; })) {
      const int n = std::stoi(s.substr(0, s.size() - 1));
      if (n <= 100) return {true, static_cast<double>(n)};
    }
  }
  c.expected(path,
             fmt::format("a pod count from 0 to {} or a percentage like \"25%\" from 0% to 100%",
                         kMaxReplicas),
             v);
}

void read_pod(const Reader& r, std::string_view key, int& out) {
  if (const json* v = r.find(key)) out = to_pod(r.context(), *v, r.at(key));
}

void read_amount(const Reader& r, std::string_view key, Amount& out) {
  if (const json* v = r.find(key)) out = to_amount(r.context(), *v, r.at(key));
}

// --- Tables -------------------------------------------------------------------------------

using DD = DurationDistribution;
using AP = ArrivalProcess;
using EK = ScenarioEvent::Kind;

// The kinds in the order messages list them, with the fields each accepts.
const std::vector<KindFields<AP::Kind>> kArrivalKinds = {
    {AP::Kind::kPoisson, {"rate_per_s"}},
    {AP::Kind::kConstant, {"rate_per_s"}},
    {AP::Kind::kBurst, {"count", "at"}},
    {AP::Kind::kList, {"at"}},
};

const std::vector<KindFields<DD::Kind>> kDistributionKinds = {
    {DD::Kind::kConstant, {"value"}},        {DD::Kind::kUniform, {"min", "max"}},
    {DD::Kind::kExponential, {"mean"}},      {DD::Kind::kLognormal, {"median", "p99"}},
    {DD::Kind::kPareto, {"scale", "shape"}}, {DD::Kind::kEmpirical, {"values", "histogram"}},
    {DD::Kind::kSequence, {"values"}},
};

const std::vector<KindFields<PreStop::Kind>> kPreStopKinds = {
    {PreStop::Kind::kNone, {}},
    {PreStop::Kind::kSleep, {"duration"}},
    {PreStop::Kind::kQuietThenSleep, {"duration"}},
    {PreStop::Kind::kQuietThenWait, {"poll", "timeout"}},
};

const std::vector<KindFields<EK>> kEventKinds = {
    {EK::kRollingRestart, {"max_surge", "max_unavailable"}},
    {EK::kOomKill, {"count", "pod"}},
    {EK::kScaleDown, {"replicas"}},
    {EK::kScaleUp, {"replicas"}},
    {EK::kSignal, {"pod", "signal"}},
    {EK::kNodeDrain, {"node"}},
    {EK::kDirective, {"pod", "state"}},
    {EK::kDeletePod, {"pod"}},
    {EK::kOomKillChild, {"pod"}},
};

// Directives only escalate, so an event asking for "running" would do nothing.
const std::vector<Directive> kDirectiveStates = {Directive::kQuiet, Directive::kTerminate};

// --- Sections -----------------------------------------------------------------------------

std::string within(Duration limit) {
  // Arrivals fall in [0, duration): "duration" is when they stop.
  return fmt::format("a time before duration ({})", format_duration(limit));
}

ArrivalProcess read_arrival(const Reader& r, Duration duration) {
  ArrivalProcess a;
  a.kind = r.kind(kArrivalKinds, "arrival kind");
  switch (a.kind) {
    case AP::Kind::kPoisson:
    case AP::Kind::kConstant:
      r.need("rate_per_s", "a number > 0 (jobs per second)");
      r.number("rate_per_s", a.rate_per_s, {0, kInf, true});
      if (a.rate_per_s > kMaxArrivalRate) {
        r.expected("rate_per_s", fmt::format("at most {} jobs per second (one per microsecond, "
                                             "the clock's resolution)",
                                             static_cast<std::int64_t>(kMaxArrivalRate)));
      }
      break;
    case AP::Kind::kBurst:
      r.need("count", "an integer >= 1");
      r.integer("count", a.count, 1, kMaxBurst);
      r.duration("at", a.at);
      if (a.at >= duration) r.expected("at", within(duration));
      break;
    case AP::Kind::kList:
      r.need("at", "a list of times like [\"1s\", \"2s\"]");
      a.times = r.durations("at", false, true);
      if (!a.times.empty() && a.times.back() >= duration) {
        r.context().expected(fmt::format("{}[{}]", r.at("at"), a.times.size() - 1),
                             within(duration), r.find("at")->back());
      }
      break;
  }
  return a;
}

DurationDistribution read_distribution(const Reader& r) {
  DurationDistribution d;
  d.kind = r.kind(kDistributionKinds, "distribution kind");
  switch (d.kind) {
    case DD::Kind::kConstant:
      r.need("value", kDurationLike);
      r.duration("value", d.value);
      break;
    case DD::Kind::kUniform:
      r.need("min", kDurationLike);
      r.need("max", kDurationLike);
      r.duration("min", d.min);
      r.duration("max", d.max);
      if (d.max < d.min) {
        r.expected("max", fmt::format("a duration >= min ({})", format_duration(d.min)));
      }
      break;
    case DD::Kind::kExponential:
      r.need("mean", "a positive duration");
      r.duration("mean", d.mean, 1);
      break;
    case DD::Kind::kLognormal:
      r.need("median", "a positive duration");
      r.need("p99", "a duration greater than median");
      r.duration("median", d.median, 1);
      r.duration("p99", d.p99);
      if (d.p99 <= d.median) {
        r.expected("p99",
                   fmt::format("a duration greater than median ({})", format_duration(d.median)));
      }
      break;
    case DD::Kind::kPareto:
      r.need("scale", "a positive duration");
      r.need("shape", "a number > 0");
      r.duration("scale", d.scale, 1);
      r.number("shape", d.shape, {0, kInf, true});
      break;
    case DD::Kind::kEmpirical:
      if ((r.find("values") != nullptr) == (r.find("histogram") != nullptr)) {
        r.context().fail(r.path(), "expected exactly one of \"values\" and \"histogram\"");
      }
      if (r.find("values")) {
        d.values = r.durations("values", true, false);
        break;
      }
      {
        const json& buckets = r.array(
            "histogram", "a non-empty list of buckets like {\"le\": \"1s\", \"weight\": 1}", true);
        for (std::size_t i = 0; i < buckets.size(); ++i) {
          const Reader b(r.context(), buckets[i], fmt::format("{}[{}]", r.at("histogram"), i));
          b.allow({"le", "weight"});
          b.need("le", kDurationLike);
          b.need("weight", "a number > 0");
          DD::Bucket bucket;
          b.duration("le", bucket.le);
          b.number("weight", bucket.weight, {0, kInf, true});
          if (i > 0 && bucket.le <= d.histogram.back().le) {
            b.expected("le", fmt::format("a duration greater than the previous le ({})",
                                         format_duration(d.histogram.back().le)));
          }
          d.histogram.push_back(bucket);
        }
      }
      break;
    case DD::Kind::kSequence:
      r.need("values", "a non-empty list of durations");
      d.values = r.durations("values", true, false);
      break;
  }
  return d;
}

WorkloadConfig read_workload(const Reader& r, Duration duration) {
  WorkloadConfig w;
  r.allow({"arrival", "job_duration", "cancel", "checkpointing", "checkpoint_interval",
           "failure_rate", "queue", "classes"});
  r.need("arrival", "an object like {\"kind\": \"poisson\", \"rate_per_s\": 10}");
  r.need("job_duration", "an object like {\"kind\": \"constant\", \"value\": \"5s\"}");
  w.arrival = read_arrival(r.object("arrival"), duration);
  w.job_duration = read_distribution(r.object("job_duration"));
  if (r.find("cancel")) {
    const Reader cancel = r.object("cancel");
    cancel.allow({"cooperative_fraction", "latency"});
    cancel.number("cooperative_fraction", w.cancel.cooperative_fraction, {0, 1});
    cancel.duration("latency", w.cancel.latency);
  }
  r.boolean("checkpointing", w.checkpointing);
  r.duration("checkpoint_interval", w.checkpoint_interval, 1);
  r.number("failure_rate", w.failure_rate, {0, 1});
  r.string("queue", w.queue, true);
  return w;
}

// The fields `r` gives over `out`.
void read_retry(const Reader& r, RetryPolicy& out) {
  r.allow({"max_attempts", "schedule", "initial_interval", "backoff_coefficient", "max_interval",
           "jitter"});
  r.integer("max_attempts", out.max_attempts, 1);
  r.choice("schedule", out.schedule, "retry schedule");
  r.duration("initial_interval", out.initial_interval);
  r.number("backoff_coefficient", out.backoff_coefficient, {1});
  r.duration("max_interval", out.max_interval);
  r.boolean("jitter", out.jitter);
}

BackendConfig read_backend(const Reader& r, const BackendConfig& defaults) {
  BackendConfig b = defaults;
  r.allow({"visibility_timeout", "heartbeat_timeout", "retry"});
  r.duration("visibility_timeout", b.visibility_timeout, 1);
  r.duration("heartbeat_timeout", b.heartbeat_timeout, 1);
  if (r.find("retry")) read_retry(r.object("retry"), b.retry);
  return b;
}

// workload.classes, read once the backend's retry policy is known; each class's policy
// also goes to backend.class_retry.
void read_classes(const Reader& workload, WorkloadConfig& w, BackendConfig& b) {
  if (!workload.find("classes")) return;
  const json& list = workload.array("classes", "a list of job classes", false);
  if (list.size() > UINT16_MAX) workload.expected("classes", "at most 65535 classes");
  const std::string path = workload.at("classes");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Reader r(workload.context(), list[i], fmt::format("{}[{}]", path, i));
    r.allow({"name", "weight", "job_duration", "failure_rate", "retry", "serial", "singleton"});
    JobClass c{"", 1, w.job_duration, w.failure_rate, b.retry};
    r.need("name", "the class's name");
    r.string("name", c.name, true);
    for (const JobClass& other : w.classes) {
      if (other.name == c.name) r.fail("name", fmt::format("\"{}\" names two classes", c.name));
    }
    r.number("weight", c.weight, {0, kInf, true});
    if (r.find("job_duration")) c.job_duration = read_distribution(r.object("job_duration"));
    r.number("failure_rate", c.failure_rate, {0, 1});
    if (r.find("retry")) read_retry(r.object("retry"), c.retry);
    r.boolean("serial", c.serial);
    r.boolean("singleton", c.singleton);
    w.classes.push_back(std::move(c));
    b.class_retry.push_back(w.classes.back().retry);
    b.class_serial.push_back(w.classes.back().serial);
    b.class_singleton.push_back(w.classes.back().singleton);
  }
}

// Every option of the profile, the scenario's values checked and the defaults filled in.
WorkerConfig read_worker(const Reader& r) {
  r.allow({"profile", "concurrency", "grace_period", "heartbeat_interval", "poll_interval",
           "fetch_latency", "startup", "queues", "options"});
  std::string name = "ojs";
  r.string("profile", name);
  const Profile* profile = find_profile(name);
  if (profile == nullptr) r.fail("profile", unknown_profile(name));
  WorkerConfig w = profile->worker;
  r.integer("concurrency", w.concurrency, 1, kMaxConcurrency);
  if (const json* grace = r.find("grace_period")) {
    w.grace_period = to_grace(r.context(), *grace, r.at("grace_period"));
  }
  r.duration("heartbeat_interval", w.heartbeat_interval, 1);
  r.duration("poll_interval", w.poll_interval, 1);
  if (r.find("fetch_latency")) w.fetch_latency = read_distribution(r.object("fetch_latency"));
  if (r.find("startup")) w.startup = read_distribution(r.object("startup"));
  if (r.find("queues")) {
    const json& queues = r.array("queues", "a non-empty list of queue names", true);
    if (queues.size() > 64) r.expected("queues", "at most 64 queue names");
    w.queues.clear();
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if (!queues[i].is_string() || queues[i].get_ref<const std::string&>().empty()) {
        r.context().expected(fmt::format("{}[{}]", r.at("queues"), i), "a queue name", queues[i]);
      }
      w.queues.push_back(queues[i].get<std::string>());
    }
  }
  w.options = read_options(r, *profile);
  w.shutdown = shutdown_behaviour(w);
  return w;
}

PlatformConfig read_platform(const Reader& r) {
  PlatformConfig p;
  r.allow({"kind", "replicas", "nodes", "termination_grace_period", "stop_grace_period", "pre_stop",
           "pod_start_delay", "restart_delay", "pid1_shell", "init"});
  r.choice("kind", p.kind, "platform kind");
  const bool docker = p.kind == PlatformConfig::Kind::kDocker;
  r.integer("replicas", p.replicas, 0, kMaxReplicas);
  r.integer("nodes", p.nodes, 1, kMaxReplicas);
  if (docker && r.find("termination_grace_period")) {
    r.fail("termination_grace_period", "a kubernetes field; docker uses \"stop_grace_period\"");
  }
  if (!docker && r.find("stop_grace_period")) {
    r.fail("stop_grace_period", "a docker field; kubernetes uses \"termination_grace_period\"");
  }
  r.duration("termination_grace_period", p.termination_grace_period);
  r.duration("stop_grace_period", p.stop_grace_period);
  if (r.find("pre_stop")) {
    const Reader pre_stop = r.object("pre_stop");
    p.pre_stop.kind = pre_stop.kind(kPreStopKinds, "preStop kind");
    if (docker && p.pre_stop.kind != PreStop::Kind::kNone) {
      r.expected("pre_stop", "{\"kind\": \"none\"} (docker has no preStop hooks)");
    }
    if (p.pre_stop.kind == PreStop::Kind::kSleep ||
        p.pre_stop.kind == PreStop::Kind::kQuietThenSleep) {
      pre_stop.need("duration", kDurationLike);
    }
    pre_stop.duration("duration", p.pre_stop.duration);
    pre_stop.duration("poll", p.pre_stop.poll, 1);
    pre_stop.duration("timeout", p.pre_stop.timeout, 1);
  }
  r.duration("pod_start_delay", p.pod_start_delay);
  r.duration("restart_delay", p.restart_delay);
  r.boolean("pid1_shell", p.pid1_shell);
  r.boolean("init", p.init);
  if (p.init && p.pid1_shell) {
    r.fail("init", "expected false when pid1_shell is true (PID 1 is either a shell or an init)");
  }
  return p;
}

ScenarioEvent read_event(const Reader& r, Time end, const PlatformConfig& platform) {
  ScenarioEvent e;
  e.kind = r.kind(kEventKinds, "event kind", {"at"});
  r.need("at", kDurationLike);
  r.duration("at", e.at);
  if (e.at > end) {
    r.expected("at", fmt::format("a time within duration + settle ({})", format_duration(end)));
  }
  const auto need_pod = [&] {
    r.need("pod", kPodLike);
    read_pod(r, "pod", e.pod);
  };
  switch (e.kind) {
    case EK::kRollingRestart:
      read_amount(r, "max_surge", e.max_surge);
      read_amount(r, "max_unavailable", e.max_unavailable);
      if (e.max_surge.value == 0 && e.max_unavailable.value == 0) {
        r.context().fail(r.path(), "max_surge and max_unavailable may not both be 0");
      }
      break;
    case EK::kOomKill:
      r.integer("count", e.count, 1, kMaxReplicas);
      read_pod(r, "pod", e.pod);
      if (e.pod >= 0 && e.count != 1) r.expected("count", "1 when a pod is named");
      break;
    case EK::kScaleDown:
    case EK::kScaleUp:
      r.need("replicas", "an integer, the new replica count");
      r.integer("replicas", e.replicas, e.kind == EK::kScaleUp ? 1 : 0, kMaxReplicas);
      break;
    case EK::kSignal: {
      need_pod();
      const std::vector<Signal> signals = all_values<Signal>();
      r.need("signal", fmt::format("one of {}", quoted_list(names_of(signals))));
      const json& v = *r.find("signal");
      std::optional<Signal> found;
      for (Signal s : signals) {
        // Short names ("TERM") too.
        if (v.is_string() && (v == name_of(s) || v == name_of(s).substr(3))) found = s;
      }
      if (!found) {
        r.fail("signal", fmt::format("unknown signal, expected one of {} (\"SIG\" may be left "
                                     "out), got {}",
                                     quoted_list(names_of(signals)), show(v)));
      }
      e.signal = *found;
      break;
    }
    case EK::kNodeDrain:
      if (platform.kind == PlatformConfig::Kind::kDocker) {
        r.fail("kind", "node_drain needs platform.kind \"kubernetes\" (docker has no nodes)");
      }
      r.need("node", "a node index");
      r.integer("node", e.node, 0, platform.nodes - 1);
      break;
    case EK::kDirective:
      need_pod();
      r.need("state", "\"quiet\" or \"terminate\"");
      r.choice("state", e.state, "directive state", kDirectiveStates);
      break;
    case EK::kDeletePod:
    case EK::kOomKillChild:
      need_pod();
      break;
  }
  return e;
}

// The most replicas the scenario asks for (`replicas`, at `path`) times worker.concurrency,
// within kMaxSlots.
void check_slots(const Context& c, const std::string& path, int replicas, int concurrency) {
  const std::int64_t slots = static_cast<std::int64_t>(replicas) * concurrency;
  if (slots <= kMaxSlots) return;
  c.fail(path, fmt::format("expected at most {} worker slots in all (replicas × "
                           "worker.concurrency), got {} × {} = {}",
                           kMaxSlots, replicas, concurrency, slots));
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_';
  });
}

// {"kind": "kubernetes", "files": [...], "workload", "container", "profile"}.
ScenarioOrigin read_origin(const Reader& r) {
  r.need("kind", "\"kubernetes\"");
  r.allow({"kind", "files", "workload", "container", "profile"});
  if (*r.find("kind") != "kubernetes") r.expected("kind", "\"kubernetes\"");
  ScenarioOrigin o;
  r.need("files", "a list of the manifest files");
  const json& files = r.array("files", "a non-empty list of file names", true);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!files[i].is_string() || files[i].get<std::string>().empty()) {
      r.context().expected(fmt::format("{}[{}]", r.at("files"), i), "a file name", files[i]);
    }
    o.files.push_back(files[i].get<std::string>());
  }
  r.need("workload", "the workload's name");
  r.string("workload", o.workload, true);
  r.need("container", "the worker container's name");
  r.string("container", o.container, true);
  r.string("profile", o.profile);
  return o;
}

Scenario read_scenario(const Context& c, const json& root) {
  Scenario s;
  const Reader r(c, root, "");
  r.allow({"name", "description", "seed", "duration", "settle", "workload", "backend", "worker",
           "platform", "events", "origin"});
  constexpr std::string_view kName =
      "a name of letters, digits, '-' and '_' (it names result files)";
  r.need("name", kName);
  r.string("name", s.name);
  if (!valid_name(s.name)) r.expected("name", kName);
  r.string("description", s.description);
  if (const json* seed = r.find("seed")) {
    const std::optional<std::int64_t> whole = as_whole(*seed);
    if (!seed->is_number_unsigned() && (!whole || *whole < 0)) {
      r.expected("seed", "a non-negative integer");
    }
    s.seed = seed->is_number_unsigned() ? seed->get<std::uint64_t>()
                                        : static_cast<std::uint64_t>(*whole);
  }
  r.need("duration", kDurationLike);
  r.duration("duration", s.duration);
  r.duration("settle", s.settle);
  r.need("workload", "an object with \"arrival\" and \"job_duration\"");
  s.workload = read_workload(r.object("workload"), s.duration);
  r.need("worker", "an object like {\"profile\": \"ojs\"}");
  s.worker = read_worker(r.object("worker"));
  s.backend = find_profile(s.worker.profile)->backend;  // the profile's defaults
  if (r.find("backend")) s.backend = read_backend(r.object("backend"), s.backend);
  s.backend.mechanisms = backend_mechanisms(s.worker);
  read_classes(r.object("workload"), s.workload, s.backend);
  const auto& queues = s.worker.queues;
  if (std::find(queues.begin(), queues.end(), s.workload.queue) == queues.end()) {
    c.expected("workload.queue", "one of the queues in worker.queues", s.workload.queue);
  }
  r.need("platform", "an object like {\"kind\": \"kubernetes\", \"replicas\": 3}");
  s.platform = read_platform(r.object("platform"));
  int most = s.platform.replicas;  // replicas at their most, and where the file asks for it
  std::string most_at = "platform.replicas";
  if (r.find("events")) {
    const json& events = r.array("events", "a list of events", false);
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Reader e(c, events[i], fmt::format("events[{}]", i));
      s.events.push_back(read_event(e, s.duration + s.settle, s.platform));
      if (s.events.back().kind == EK::kScaleUp && s.events.back().replicas > most) {
        most = s.events.back().replicas;
        most_at = fmt::format("events[{}].replicas", i);
      }
      if (s.events.back().kind == EK::kOomKillChild &&
          s.worker.shutdown.child_lost == ShutdownBehaviour::ChildLost::kNone) {
        e.fail("kind", fmt::format("profile \"{}\" runs its jobs in the worker process, which "
                                   "an OOM kill takes whole (use \"oom_kill\")",
                                   s.worker.profile));
      }
    }
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  }
  check_slots(c, most_at, most, s.worker.concurrency);
  if (r.find("origin")) s.origin = read_origin(r.object("origin"));
  return s;
}

}  // namespace

ProfileOptions read_options(const Reader& worker, const Profile& profile) {
  ProfileOptions out = default_options(profile);
  if (!worker.find("options")) return out;
  if (!worker.find("options")->is_object()) {
    worker.expected("options", "an object of profile-specific options");
  }
  const Reader r = worker.object("options");
  std::vector<std::string_view> names;
  for (const ProfileOption& o : profile.options) names.push_back(o.name);
  const json& given = *worker.find("options");
  if (names.empty() && !given.empty()) {
    r.fail(given.begin().key(), fmt::format("profile \"{}\" has no options", profile.name));
  }
  r.allow(names, fmt::format(" for profile \"{}\"", profile.name));
  for (const ProfileOption& o : profile.options) {
    if (!r.find(o.name)) continue;
    OptionValue& value = out.find(o.name)->second;
    if (std::holds_alternative<bool>(o.fallback)) {
      r.boolean(o.name, std::get<bool>(value));
    } else if (std::holds_alternative<Duration>(o.fallback)) {
      r.duration(o.name, std::get<Duration>(value), 1);
    } else {
      r.integer(o.name, std::get<int>(value), 0);
    }
  }
  return out;
}

Scenario parse_scenario(std::string_view text, std::string_view source,
                        const std::vector<std::string>& overrides) {
  Context c(source);
  if (std::all_of(text.begin(), text.end(),
                  [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); })) {
    c.fail("", "empty file, expected a JSON object");
  }
  json root = parse_json(text, source, /*comments=*/true);
  if (!root.is_object()) c.expected("", "a JSON object at the top level", root);
  for (const std::string& o : overrides) apply_override(root, o, c);
  return read_scenario(c, root);
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_scenario(read_input_file(path, kMaxScenarioBytes, "a scenario file"), path,
                        overrides);
}

}  // namespace drainsim
