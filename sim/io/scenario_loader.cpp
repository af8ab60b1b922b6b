#include "io/scenario_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "profiles/profile.h"

namespace drainsim {

namespace {

using json = nlohmann::json;

// Far beyond any real setting, and small enough that a few sums stay clear of overflow.
constexpr Duration kMaxDuration = 1'000'000 * kHour;
constexpr std::string_view kDurationLike = "a duration like \"25s\"";
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::string_view kPodLike = "a pod id like \"pod-0\"";

// A JSON value as messages show it: compact, cut when long.
std::string show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string quoted_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}\"{}\"", out.empty() ? "" : ", ", n);
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool starts_with_step(std::string_view path, std::string_view prefix) {
  return path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix &&
         (path[prefix.size()] == '.' || path[prefix.size()] == '[');
}

// Where messages point: the input's name, and the --set overrides, so that an error at a
// path an override wrote says it came from there.
class Context {
 public:
  explicit Context(std::string_view source) : source_(source) {}

  void add_override(std::string path, std::string text) {
    overrides_.emplace_back(std::move(path), std::move(text));
  }

  [[noreturn]] void fail(const std::string& path, std::string_view message) const {
    std::string where = source_;
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
      const std::string& set = it->first;
      if (set == path || starts_with_step(set, path) || starts_with_step(path, set)) {
        where += fmt::format(" (--set {})", it->second);
        break;
      }
    }
    if (path.empty()) throw ScenarioError(fmt::format("{}: {}", where, message));
    throw ScenarioError(fmt::format("{}: {}: {}", where, path, message));
  }

  [[noreturn]] void expected(const std::string& path, std::string_view what, const json& v) const {
    fail(path, fmt::format("expected {}, got {}", what, show(v)));
  }

 private:
  std::string source_;
  std::vector<std::pair<std::string, std::string>> overrides_;  // path, PATH=VALUE text
};

// --- Single values, checked at a path -----------------------------------------------------

Duration to_duration(const Context& c, const json& v, const std::string& path, Duration min = 0) {
  std::optional<Duration> d;
  if (v.is_string()) d = parse_duration(v.get_ref<const std::string&>());
  if (!d || *d < min) {
    c.expected(path, min > 0 ? "a positive duration like \"25s\"" : kDurationLike, v);
  }
  if (*d > kMaxDuration) c.expected(path, "a duration of at most 1000000h", v);
  return *d;
}

// A whole number as an integer. JSON Schema (and so the shipped schema) counts 3.0 as an
// integer; so does the loader.
std::optional<std::int64_t> as_whole(const json& v) {
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return v.get<std::int64_t>();
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (x == std::floor(x) && std::fabs(x) <= 0x1p53) return static_cast<std::int64_t>(x);
  }
  return std::nullopt;
}

std::int64_t to_integer(const Context& c, const json& v, const std::string& path, std::int64_t min,
                        std::int64_t max) {
  const std::optional<std::int64_t> x = as_whole(v);
  if (!x || *x < min || *x > max) {
    c.expected(path,
               max >= INT_MAX ? fmt::format("an integer >= {}", min)
                              : fmt::format("an integer from {} to {}", min, max),
               v);
  }
  return *x;
}

// A number in [min, max], or (min, max] when min_open.
struct Range {
  double min = 0;
  double max = kInf;
  bool min_open = false;
  std::string describe() const {
    if (std::isfinite(max)) return fmt::format("a number from {} to {}", min, max);
    return fmt::format("a number {} {}", min_open ? ">" : ">=", min);
  }
};

double to_number(const Context& c, const json& v, const std::string& path, Range r) {
  if (!v.is_number()) c.expected(path, r.describe(), v);
  const double x = v.get<double>();
  if (x < r.min || (r.min_open && x == r.min) || x > r.max) c.expected(path, r.describe(), v);
  return x;
}

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
  if (count && *count >= 0 && *count <= INT_MAX) return {false, static_cast<double>(*count)};
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() >= 2 && s.size() <= 4 && s.back() == '%' && (s[0] != '0' || s.size() == 2) &&
        std::all_of(s.begin(), s.end() - 1, [](char ch) { return ch >= '0' && ch <= '9'; })) {
      const int n = std::stoi(s.substr(0, s.size() - 1));
      if (n <= 100) return {true, static_cast<double>(n)};
    }
  }
  c.expected(path, "a pod count like 1 or a percentage like \"25%\" from 0% to 100%", v);
}

// Tables of names: enum values, and kinds with the fields each accepts besides "kind".
template <class E>
struct Named {
  std::string_view name;
  E value;
};

template <class E>
struct Kind {
  std::string_view name;
  E value;
  std::vector<std::string_view> fields;
};

template <class Row>
std::vector<std::string_view> names_of(const std::vector<Row>& table) {
  std::vector<std::string_view> names;
  for (const auto& row : table) names.push_back(row.name);
  return names;
}

template <class Row>
const Row& choose(const Context& c, const json& v, const std::string& path,
                  const std::vector<Row>& table, std::string_view what) {
  if (v.is_string()) {
    for (const auto& row : table) {
      if (row.name == v.get_ref<const std::string&>()) return row;
    }
    c.fail(path, fmt::format("unknown {}, expected one of {}, got {}", what,
                             quoted_list(names_of(table)), show(v)));
  }
  c.expected(path, fmt::format("{}: one of {}", what, quoted_list(names_of(table))), v);
}

// Reads one JSON object at a known path: typed fields (left unchanged when absent, so the
// caller's defaults stand), required fields, and unknown-field checks with suggestions.
class Reader {
 public:
  Reader(const Context& c, const json& j, std::string path) : c_(c), j_(j), path_(std::move(path)) {
    if (!j.is_object()) c_.expected(path_, "an object", j);
  }

  const Context& context() const { return c_; }
  const std::string& path() const { return path_; }
  std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }
  const json* find(std::string_view key) const {
    auto it = j_.find(std::string(key));
    return it == j_.end() ? nullptr : &*it;
  }

  // Fails on the first key not in `known`, naming the nearest known one when close.
  void allow(const std::vector<std::string_view>& known, std::string_view qualifier = "") const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      const std::string& key = it.key();
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string_view best;
      std::size_t best_distance = SIZE_MAX;
      for (std::string_view k : known) {
        const std::size_t d = edit_distance(key, k);
        if (d < best_distance) best = k, best_distance = d;
      }
      const std::string what = fmt::format("unknown field{}", qualifier);
      if (best_distance <= std::max<std::size_t>(1, best.size() / 3)) {
        c_.fail(at(key), fmt::format("{}, did you mean \"{}\"?", what, best));
      }
      c_.fail(at(key), fmt::format("{}, expected one of {}", what, quoted_list(known)));
    }
  }

  // For objects whose fields depend on "kind": reads the kind, then allows only its fields
  // and the `common` ones.
  template <class E>
  E kind(const std::vector<Kind<E>>& table, std::string_view what,
         std::vector<std::string_view> common = {}) const {
    need("kind", fmt::format("one of {}", quoted_list(names_of(table))));
    const Kind<E>& row = choose(c_, *find("kind"), at("kind"), table, what);
    std::vector<std::string_view> known = {"kind"};
    known.insert(known.end(), common.begin(), common.end());
    known.insert(known.end(), row.fields.begin(), row.fields.end());
    allow(known, fmt::format(" for kind \"{}\"", row.name));
    return row.value;
  }

  void need(std::string_view key, std::string_view what) const {
    if (!find(key)) c_.fail(at(key), fmt::format("required field missing, expected {}", what));
  }
  [[noreturn]] void fail(std::string_view key, std::string_view message) const {
    c_.fail(at(key), message);
  }
  [[noreturn]] void expected(std::string_view key, std::string_view what) const {
    c_.expected(at(key), what, *find(key));
  }

  void duration(std::string_view key, Duration& out, Duration min = 0) const {
    if (const json* v = find(key)) out = to_duration(c_, *v, at(key), min);
  }
  template <class T>
  void integer(std::string_view key, T& out, std::int64_t min, std::int64_t max = INT_MAX) const {
    if (const json* v = find(key)) out = static_cast<T>(to_integer(c_, *v, at(key), min, max));
  }
  void number(std::string_view key, double& out, Range r) const {
    if (const json* v = find(key)) out = to_number(c_, *v, at(key), r);
  }
  void boolean(std::string_view key, bool& out) const {
    if (const json* v = find(key)) {
      if (!v->is_boolean()) expected(key, "true or false");
      out = v->get<bool>();
    }
  }
  void string(std::string_view key, std::string& out, bool non_empty = false) const {
    if (const json* v = find(key)) {
      if (!v->is_string() || (non_empty && v->get_ref<const std::string&>().empty())) {
        expected(key, non_empty ? "a non-empty string" : "a string");
      }
      out = v->get<std::string>();
    }
  }
  template <class E>
  void choice(std::string_view key, E& out, const std::vector<Named<E>>& table,
              std::string_view what) const {
    if (const json* v = find(key)) out = choose(c_, *v, at(key), table, what).value;
  }
  void pod(std::string_view key, int& out) const {
    if (const json* v = find(key)) out = to_pod(c_, *v, at(key));
  }
  void amount(std::string_view key, Amount& out) const {
    if (const json* v = find(key)) out = to_amount(c_, *v, at(key));
  }
  // A list of durations; REQUIRES: present.
  std::vector<Duration> durations(std::string_view key, bool non_empty, bool non_decreasing) const {
    const json& v = *find(key);
    if (!v.is_array() || (non_empty && v.empty())) {
      expected(key,
               fmt::format("a {}list of {} like [\"1s\", \"2s\"]", non_empty ? "non-empty " : "",
                           non_decreasing ? "times" : "durations"));
    }
    std::vector<Duration> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string item = fmt::format("{}[{}]", at(key), i);
      out.push_back(to_duration(c_, v[i], item));
      if (non_decreasing && i > 0 && out[i] < out[i - 1]) {
        c_.expected(item,
                    fmt::format("a time >= the previous one ({})", format_duration(out[i - 1])),
                    v[i]);
      }
    }
    return out;
  }
  // A nested object; REQUIRES: present.
  Reader object(std::string_view key) const { return Reader(c_, *find(key), at(key)); }
  // A list; REQUIRES: present.
  const json& array(std::string_view key, std::string_view what, bool non_empty) const {
    const json& v = *find(key);
    if (!v.is_array() || (non_empty && v.empty())) expected(key, what);
    return v;
  }

 private:
  const Context& c_;
  const json& j_;
  std::string path_;
};

// --- Tables -------------------------------------------------------------------------------

using DD = DurationDistribution;
using AP = ArrivalProcess;
using EK = ScenarioEvent::Kind;

const std::vector<Kind<AP::Kind>> kArrivalKinds = {
    {"poisson", AP::Kind::kPoisson, {"rate_per_s"}},
    {"constant", AP::Kind::kConstant, {"rate_per_s"}},
    {"burst", AP::Kind::kBurst, {"count", "at"}},
    {"list", AP::Kind::kList, {"at"}},
};

const std::vector<Kind<DD::Kind>> kDistributionKinds = {
    {"constant", DD::Kind::kConstant, {"value"}},
    {"uniform", DD::Kind::kUniform, {"min", "max"}},
    {"exponential", DD::Kind::kExponential, {"mean"}},
    {"lognormal", DD::Kind::kLognormal, {"median", "p99"}},
    {"pareto", DD::Kind::kPareto, {"scale", "shape"}},
    {"empirical", DD::Kind::kEmpirical, {"values", "histogram"}},
    {"sequence", DD::Kind::kSequence, {"values"}},
};

const std::vector<Named<PlatformConfig::Kind>> kPlatformKinds = {
    {"kubernetes", PlatformConfig::Kind::kKubernetes},
    {"docker", PlatformConfig::Kind::kDocker},
};

const std::vector<Kind<PreStop::Kind>> kPreStopKinds = {
    {"none", PreStop::Kind::kNone, {}},
    {"sleep", PreStop::Kind::kSleep, {"duration"}},
    {"quiet_then_sleep", PreStop::Kind::kQuietThenSleep, {"duration"}},
    {"quiet_then_wait", PreStop::Kind::kQuietThenWait, {"poll", "timeout"}},
};

const std::vector<Kind<EK>> kEventKinds = {
    {"rolling_restart", EK::kRollingRestart, {"max_surge", "max_unavailable"}},
    {"oom_kill", EK::kOomKill, {"count", "pod"}},
    {"scale_down", EK::kScaleDown, {"replicas"}},
    {"scale_up", EK::kScaleUp, {"replicas"}},
    {"signal", EK::kSignal, {"pod", "signal"}},
    {"node_drain", EK::kNodeDrain, {"node"}},
    {"directive", EK::kDirective, {"pod", "state"}},
    {"delete_pod", EK::kDeletePod, {"pod"}},
};

// Short names ("TERM") are accepted as well; see read_event.
const std::vector<Named<Signal>> kSignals = {
    {"SIGTERM", Signal::kTerm}, {"SIGINT", Signal::kInt},   {"SIGTSTP", Signal::kTstp},
    {"SIGCONT", Signal::kCont}, {"SIGKILL", Signal::kKill}, {"SIGQUIT", Signal::kQuit},
};

// Directives only escalate, so an event asking for "running" would do nothing.
const std::vector<Named<Directive>> kDirectiveStates = {
    {"quiet", Directive::kQuiet},
    {"terminate", Directive::kTerminate},
};

template <class Row, class E>
std::string_view name_of(const std::vector<Row>& table, E value) {
  for (const auto& row : table) {
    if (row.value == value) return row.name;
  }
  return "?";
}

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
      break;
    case AP::Kind::kBurst:
      r.need("count", "an integer >= 1");
      r.integer("count", a.count, 1);
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

DurationDistribution read_job_duration(const Reader& r) {
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
           "failure_rate", "queue"});
  r.need("arrival", "an object like {\"kind\": \"poisson\", \"rate_per_s\": 10}");
  r.need("job_duration", "an object like {\"kind\": \"constant\", \"value\": \"5s\"}");
  w.arrival = read_arrival(r.object("arrival"), duration);
  w.job_duration = read_job_duration(r.object("job_duration"));
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

BackendConfig read_backend(const Reader& r, const BackendConfig& defaults) {
  BackendConfig b = defaults;
  r.allow({"visibility_timeout", "heartbeat_timeout", "retry"});
  r.duration("visibility_timeout", b.visibility_timeout, 1);
  r.duration("heartbeat_timeout", b.heartbeat_timeout, 1);
  if (r.find("retry")) {
    const Reader retry = r.object("retry");
    retry.allow(
        {"max_attempts", "initial_interval", "backoff_coefficient", "max_interval", "jitter"});
    retry.integer("max_attempts", b.retry.max_attempts, 1);
    retry.duration("initial_interval", b.retry.initial_interval);
    retry.number("backoff_coefficient", b.retry.backoff_coefficient, {1});
    retry.duration("max_interval", b.retry.max_interval);
    retry.boolean("jitter", b.retry.jitter);
  }
  return b;
}

// Every option of the profile, the scenario's values checked and the defaults filled in.
json read_options(const Reader& worker, const Profile& profile) {
  json out = default_options(profile);
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
    const std::string key(o.name);
    if (!r.find(key)) continue;
    switch (o.kind) {
      case ProfileOption::Kind::kBool: {
        bool v = false;
        r.boolean(key, v);
        out[key] = v;
        break;
      }
      case ProfileOption::Kind::kDuration: {
        Duration d = 0;
        r.duration(key, d, 1);
        out[key] = format_duration(d);
        break;
      }
      case ProfileOption::Kind::kCount: {
        int n = 0;
        r.integer(key, n, 0);
        out[key] = n;
        break;
      }
    }
  }
  return out;
}

WorkerConfig read_worker(const Reader& r) {
  r.allow({"profile", "concurrency", "grace_period", "heartbeat_interval", "poll_interval",
           "queues", "options"});
  std::string name = "ojs";
  r.string("profile", name);
  const Profile* profile = find_profile(name);
  if (profile == nullptr) {
    std::vector<std::string_view> names;
    for (const Profile& p : all_profiles()) names.push_back(p.name);
    r.fail("profile", fmt::format("unknown profile, expected one of {}, got {}", quoted_list(names),
                                  show(*r.find("profile"))));
  }
  WorkerConfig w = profile->worker;
  r.integer("concurrency", w.concurrency, 1);
  if (const json* grace = r.find("grace_period"); grace && *grace == "forever") {
    w.grace_period = kNever;
  } else if (grace) {
    w.grace_period = to_duration(r.context(), *grace, r.at("grace_period"));
  }
  r.duration("heartbeat_interval", w.heartbeat_interval, 1);
  r.duration("poll_interval", w.poll_interval, 1);
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
           "pod_start_delay", "restart_delay", "pid1_shell"});
  r.choice("kind", p.kind, kPlatformKinds, "platform kind");
  const bool docker = p.kind == PlatformConfig::Kind::kDocker;
  r.integer("replicas", p.replicas, 0);
  r.integer("nodes", p.nodes, 1);
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
    r.pod("pod", e.pod);
  };
  switch (e.kind) {
    case EK::kRollingRestart:
      r.amount("max_surge", e.max_surge);
      r.amount("max_unavailable", e.max_unavailable);
      if (e.max_surge.value == 0 && e.max_unavailable.value == 0) {
        r.context().fail(r.path(), "max_surge and max_unavailable may not both be 0");
      }
      break;
    case EK::kOomKill:
      r.integer("count", e.count, 1);
      r.pod("pod", e.pod);
      if (e.pod >= 0 && e.count != 1) r.expected("count", "1 when a pod is named");
      break;
    case EK::kScaleDown:
    case EK::kScaleUp:
      r.need("replicas", "an integer, the new replica count");
      r.integer("replicas", e.replicas, e.kind == EK::kScaleUp ? 1 : 0);
      break;
    case EK::kSignal: {
      need_pod();
      r.need("signal", fmt::format("one of {}", quoted_list(names_of(kSignals))));
      const json& v = *r.find("signal");
      const Named<Signal>* found = nullptr;
      for (const auto& row : kSignals) {
        // Short names ("TERM") too.
        if (v.is_string() && (v == row.name || v == row.name.substr(3))) found = &row;
      }
      if (found == nullptr) {
        r.fail("signal", fmt::format("unknown signal, expected one of {} (\"SIG\" may be left "
                                     "out), got {}",
                                     quoted_list(names_of(kSignals)), show(v)));
      }
      e.signal = found->value;
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
      r.choice("state", e.state, kDirectiveStates, "directive state");
      break;
    case EK::kDeletePod:
      need_pod();
      break;
  }
  return e;
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_';
  });
}

Scenario read_scenario(const Context& c, const json& root) {
  Scenario s;
  const Reader r(c, root, "");
  r.allow({"name", "description", "seed", "duration", "settle", "workload", "backend", "worker",
           "platform", "events"});
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
  const auto& queues = s.worker.queues;
  if (std::find(queues.begin(), queues.end(), s.workload.queue) == queues.end()) {
    c.expected("workload.queue", "one of the queues in worker.queues", s.workload.queue);
  }
  r.need("platform", "an object like {\"kind\": \"kubernetes\", \"replicas\": 3}");
  s.platform = read_platform(r.object("platform"));
  if (r.find("events")) {
    const json& events = r.array("events", "a list of events", false);
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Reader e(c, events[i], fmt::format("events[{}]", i));
      s.events.push_back(read_event(e, s.duration + s.settle, s.platform));
    }
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  }
  return s;
}

// --- Overrides ----------------------------------------------------------------------------

// "a.b[2].c" as steps: a key, then the item indexes that follow it. nullopt if malformed.
struct Step {
  std::string key;
  std::vector<std::size_t> indexes;
};

std::optional<std::vector<Step>> parse_path(std::string_view path) {
  std::vector<Step> steps;
  while (true) {
    const std::size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    const std::size_t bracket = part.find('[');
    Step step{std::string(part.substr(0, bracket)), {}};
    if (step.key.empty()) return std::nullopt;
    part.remove_prefix(bracket == std::string_view::npos ? part.size() : bracket);
    while (!part.empty()) {
      const std::size_t close = part.find(']');
      if (part[0] != '[' || close == std::string_view::npos || close == 1 || close > 10) {
        return std::nullopt;
      }
      std::size_t index = 0;
      for (char ch : part.substr(1, close - 1)) {
        if (ch < '0' || ch > '9') return std::nullopt;
        index = index * 10 + static_cast<std::size_t>(ch - '0');
      }
      step.indexes.push_back(index);
      part.remove_prefix(close + 1);
    }
    steps.push_back(std::move(step));
    if (dot == std::string_view::npos) return steps;
    path.remove_prefix(dot + 1);
  }
}

void apply_override(json& root, const std::string& text, Context& c) {
  const std::size_t eq = text.find('=');
  const auto steps =
      eq == std::string::npos ? std::nullopt : parse_path(std::string_view(text).substr(0, eq));
  if (!steps) throw ScenarioError(fmt::format("--set {}: expected PATH=VALUE", text));
  std::string path;
  for (const Step& step : *steps) {
    path += fmt::format("{}{}", path.empty() ? "" : ".", step.key);
    for (std::size_t i : step.indexes) path += fmt::format("[{}]", i);
  }
  c.add_override(path, text);

  const std::string value_text = text.substr(eq + 1);
  json value = json::parse(value_text, nullptr, false);
  if (value.is_discarded()) value = value_text;

  json* node = &root;
  std::string at;
  for (const Step& step : *steps) {
    if (node->is_null()) *node = json::object();
    if (!node->is_object()) {
      c.expected(at, fmt::format("an object to set \"{}\" in", step.key), *node);
    }
    at += fmt::format("{}{}", at.empty() ? "" : ".", step.key);
    node = &(*node)[step.key];
    for (std::size_t i : step.indexes) {
      if (!node->is_array() || i >= node->size()) {
        c.fail(fmt::format("{}[{}]", at, i), fmt::format("no such item to set, {} has {}", at,
                                                         node->is_array() ? node->size() : 0));
      }
      at += fmt::format("[{}]", i);
      node = &(*node)[i];
    }
  }
  *node = std::move(value);
}

// --- Writing ------------------------------------------------------------------------------

json amount_json(const Amount& a) {
  if (!a.percent) return static_cast<std::int64_t>(a.value);
  return fmt::format("{}%", a.value);
}

json durations_json(const std::vector<Duration>& ds) {
  json out = json::array();
  for (Duration d : ds) out.push_back(format_duration(d));
  return out;
}

json distribution_json(const DurationDistribution& d) {
  json j = {{"kind", name_of(kDistributionKinds, d.kind)}};
  switch (d.kind) {
    case DD::Kind::kConstant:
      j["value"] = format_duration(d.value);
      break;
    case DD::Kind::kUniform:
      j["min"] = format_duration(d.min);
      j["max"] = format_duration(d.max);
      break;
    case DD::Kind::kExponential:
      j["mean"] = format_duration(d.mean);
      break;
    case DD::Kind::kLognormal:
      j["median"] = format_duration(d.median);
      j["p99"] = format_duration(d.p99);
      break;
    case DD::Kind::kPareto:
      j["scale"] = format_duration(d.scale);
      j["shape"] = d.shape;
      break;
    case DD::Kind::kEmpirical:
      if (d.histogram.empty()) {
        j["values"] = durations_json(d.values);
        break;
      }
      j["histogram"] = json::array();
      for (const auto& b : d.histogram) {
        j["histogram"].push_back({{"le", format_duration(b.le)}, {"weight", b.weight}});
      }
      break;
    case DD::Kind::kSequence:
      j["values"] = durations_json(d.values);
      break;
  }
  return j;
}

json arrival_json(const ArrivalProcess& a) {
  json j = {{"kind", name_of(kArrivalKinds, a.kind)}};
  switch (a.kind) {
    case AP::Kind::kPoisson:
    case AP::Kind::kConstant:
      j["rate_per_s"] = a.rate_per_s;
      break;
    case AP::Kind::kBurst:
      j["count"] = a.count;
      j["at"] = format_duration(a.at);
      break;
    case AP::Kind::kList:
      j["at"] = durations_json(a.times);
      break;
  }
  return j;
}

json event_json(const ScenarioEvent& e) {
  json j = {{"at", format_duration(e.at)}, {"kind", name_of(kEventKinds, e.kind)}};
  const auto pod = [](int n) { return fmt::format("pod-{}", n); };
  switch (e.kind) {
    case EK::kRollingRestart:
      j["max_surge"] = amount_json(e.max_surge);
      j["max_unavailable"] = amount_json(e.max_unavailable);
      break;
    case EK::kOomKill:
      j["count"] = e.count;
      if (e.pod >= 0) j["pod"] = pod(e.pod);
      break;
    case EK::kScaleDown:
    case EK::kScaleUp:
      j["replicas"] = e.replicas;
      break;
    case EK::kSignal:
      j["pod"] = pod(e.pod);
      j["signal"] = to_string(e.signal);
      break;
    case EK::kNodeDrain:
      j["node"] = e.node;
      break;
    case EK::kDirective:
      j["pod"] = pod(e.pod);
      j["state"] = to_string(e.state);
      break;
    case EK::kDeletePod:
      j["pod"] = pod(e.pod);
      break;
  }
  return j;
}

}  // namespace

Scenario parse_scenario(std::string_view text, std::string_view source,
                        const std::vector<std::string>& overrides) {
  Context c(source);
  if (std::all_of(text.begin(), text.end(),
                  [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); })) {
    c.fail("", "empty file, expected a JSON object");
  }
  json root;
  try {
    root = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    std::string_view what = e.what();
    if (const std::size_t end = what.find("] "); what.rfind("[json.", 0) == 0 && end != what.npos) {
      what.remove_prefix(end + 2);
    }
    c.fail("", fmt::format("not valid JSON: {}", what));
  }
  if (!root.is_object()) c.expected("", "a JSON object at the top level", root);
  for (const std::string& o : overrides) apply_override(root, o, c);
  return read_scenario(c, root);
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(fmt::format("{}: cannot read: is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw ScenarioError(fmt::format("{}: cannot read", path));
  return parse_scenario(text, path, overrides);
}

json pre_stop_json(const PreStop& p) {
  json j = {{"kind", name_of(kPreStopKinds, p.kind)}};
  switch (p.kind) {
    case PreStop::Kind::kNone:
      break;
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      j["duration"] = format_duration(p.duration);
      break;
    case PreStop::Kind::kQuietThenWait:
      j["poll"] = format_duration(p.poll);
      j["timeout"] = format_duration(p.timeout);
      break;
  }
  return j;
}

json scenario_to_json(const Scenario& s) {
  const WorkloadConfig& w = s.workload;
  const BackendConfig& b = s.backend;
  const WorkerConfig& k = s.worker;
  const PlatformConfig& p = s.platform;
  json platform = {
      {"kind", name_of(kPlatformKinds, p.kind)},
      {"replicas", p.replicas},
      {"nodes", p.nodes},
      {"pre_stop", pre_stop_json(p.pre_stop)},
      {"pod_start_delay", format_duration(p.pod_start_delay)},
      {"restart_delay", format_duration(p.restart_delay)},
      {"pid1_shell", p.pid1_shell},
  };
  if (p.kind == PlatformConfig::Kind::kDocker) {
    platform["stop_grace_period"] = format_duration(p.stop_grace_period);
  } else {
    platform["termination_grace_period"] = format_duration(p.termination_grace_period);
  }
  json events = json::array();
  for (const ScenarioEvent& e : s.events) events.push_back(event_json(e));
  return {
      {"name", s.name},
      {"description", s.description},
      {"seed", s.seed},
      {"duration", format_duration(s.duration)},
      {"settle", format_duration(s.settle)},
      {"workload",
       {
           {"arrival", arrival_json(w.arrival)},
           {"job_duration", distribution_json(w.job_duration)},
           {"cancel",
            {{"cooperative_fraction", w.cancel.cooperative_fraction},
             {"latency", format_duration(w.cancel.latency)}}},
           {"checkpointing", w.checkpointing},
           {"checkpoint_interval", format_duration(w.checkpoint_interval)},
           {"failure_rate", w.failure_rate},
           {"queue", w.queue},
       }},
      {"backend",
       {
           {"visibility_timeout", format_duration(b.visibility_timeout)},
           {"heartbeat_timeout", format_duration(b.heartbeat_timeout)},
           {"retry",
            {{"max_attempts", b.retry.max_attempts},
             {"initial_interval", format_duration(b.retry.initial_interval)},
             {"backoff_coefficient", b.retry.backoff_coefficient},
             {"max_interval", format_duration(b.retry.max_interval)},
             {"jitter", b.retry.jitter}}},
       }},
      {"worker",
       {
           {"profile", k.profile},
           {"concurrency", k.concurrency},
           {"grace_period", k.grace_period == kNever ? "forever" : format_duration(k.grace_period)},
           {"heartbeat_interval", format_duration(k.heartbeat_interval)},
           {"poll_interval", format_duration(k.poll_interval)},
           {"queues", k.queues},
           {"options", k.options},
       }},
      {"platform", platform},
      {"events", events},
  };
}

}  // namespace drainsim
