#include "io/system_manifest.h"

#include <filesystem>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/input_file.h"
#include "io/json_reader.h"
#include "io/scenario_reader.h"
#include "io/scenario_writer.h"
#include "profiles/profile.h"

namespace drainsim {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> strings(const Reader& r, std::string_view key, bool non_empty) {
  std::vector<std::string> out;
  const json& list = r.array(key, "a list of strings", non_empty);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) {
      r.context().expected(fmt::format("{}[{}]", r.at(key), i), "a string", list[i]);
    }
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

// Every leaf under `j` as "path" -> value.
void flatten(const json& j, const std::string& path, std::map<std::string, json>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) flatten(v, path + "." + k, out);
  } else {
    out[path] = j;
  }
}

bool honoured(const std::string& path, const std::vector<std::string>& honours) {
  for (const std::string& h : honours) {
    if (path == h || path.rfind(h + ".", 0) == 0) return true;
  }
  return false;
}

}  // namespace

SystemManifest read_manifest(const std::string& folder) {
  const std::string file = (fs::path(folder) / "system.json").string();
  const Context c(file);
  const json root = parse_json(read_input_file(file, kMaxScenarioBytes, "a system.json"), file);
  if (!root.is_object()) c.expected("", "a JSON object", root);
  const Reader r(c, root, "");
  r.allow({"system", "profile", "broker", "packages", "worker", "enqueue", "inspect", "env",
           "honours", "options", "reports"});
  SystemManifest m;
  m.dir = fs::absolute(folder).lexically_normal().string();
  if (!m.dir.empty() && m.dir.back() == '/') m.dir.pop_back();
  for (const char* key : {"system", "profile", "broker", "worker", "enqueue", "inspect"}) {
    r.need(key, "see adapters/README.md");
  }
  r.string("system", m.system, true);
  r.string("profile", m.profile, true);
  const Profile* profile = find_profile(m.profile);
  if (profile == nullptr) r.fail("profile", unknown_profile(m.profile));
  m.options = read_options(r, *profile);
  r.string("broker", m.broker, true);
  if (m.broker != "redis" && m.broker != "rabbitmq" && m.broker != "postgresql") {
    r.expected("broker", "\"redis\", \"rabbitmq\" or \"postgresql\"");
  }
  if (r.find("packages")) m.packages = strings(r, "packages", false);
  m.worker = strings(r, "worker", true);
  m.enqueue = strings(r, "enqueue", true);
  m.inspect = strings(r, "inspect", true);
  if (r.find("honours")) m.honours = strings(r, "honours", false);
  if (r.find("reports")) {
    const std::vector<std::string> reports = strings(r, "reports", false);
    for (std::size_t i = 0; i < reports.size(); ++i) {
      if (reports[i] != "available") {
        c.expected(fmt::format("reports[{}]", i), "\"available\" (the events an adapter may add)",
                   json(reports[i]));
      }
    }
    m.reports_available = !reports.empty();
  }
  if (const json* env = r.find("env")) {
    if (!env->is_object()) r.expected("env", "an object of strings");
    for (const auto& [k, v] : env->items()) {
      if (!v.is_string()) c.expected("env." + k, "a string", v);
      m.env[k] = v.get<std::string>();
    }
  }
  return m;
}

std::map<std::string, SystemManifest> read_manifests(const std::string& adapters_dir) {
  std::map<std::string, SystemManifest> out;
  std::error_code ec;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(adapters_dir, ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "system.json")) {
      folders.push_back(entry.path());
    }
  }
  if (ec) throw InputError(fmt::format("{}: cannot list it: {}", adapters_dir, ec.message()));
  std::sort(folders.begin(), folders.end());
  for (const fs::path& folder : folders) {
    SystemManifest m = read_manifest(folder.string());
    if (out.count(m.system)) {
      throw InputError(fmt::format("{}/system.json: system: \"{}\" is also {}/system.json's",
                                   folder.string(), m.system, out[m.system].dir));
    }
    out[m.system] = std::move(m);
  }
  return out;
}

std::vector<std::string> not_honoured(const Scenario& s, const SystemManifest& system) {
  std::vector<std::string> out;
  const Profile* profile = find_profile(system.profile);
  if (s.worker.profile != system.profile) {
    out.push_back(
        fmt::format("worker.profile: the real {} is modelled by the profile \"{}\", "
                    "got \"{}\"",
                    system.system, system.profile, s.worker.profile));
    return out;
  }
  // The same scenario with the worker and backend the profile has by default.
  Scenario defaults = s;
  defaults.worker = profile->worker;
  defaults.worker.options = system.options.empty() ? default_options(*profile) : system.options;
  defaults.worker.queues = {s.workload.queue};  // the real worker listens on the workload's
  defaults.backend = profile->backend;
  std::map<std::string, json> have, want;
  const json doc = scenario_to_json(s), base = scenario_to_json(defaults);
  for (const char* section : {"worker", "backend"}) {
    flatten(doc.at(section), section, have);
    flatten(base.at(section), section, want);
  }
  for (const auto& [path, value] : have) {
    if (honoured(path, system.honours) || want[path] == value) continue;
    if (path.starts_with("worker.fetch_latency")) continue;  // the model of its network
    if (path.starts_with("worker.startup")) continue;        // the model of its program's start-up
    if (path.starts_with("worker.options.")) {
      out.push_back(fmt::format(
          "{}: the real {} runs the release where it is {} (adapters/{}/system.json), got {}", path,
          system.system, want[path].dump(), fs::path(system.dir).filename().string(),
          value.dump()));
      continue;
    }
    out.push_back(
        fmt::format("{}: the real {} is not given this setting, so it must be the "
                    "profile's {}, got {}",
                    path, system.system, want[path].dump(), value.dump()));
  }
  const WorkloadConfig& w = s.workload;
  // Job classes: the enqueuer is told each job's class, its attempts and whether it is
  // serial or a singleton (adapters/README.md); durations and failures are drainsim's own.
  // "workload.classes.retry": the adapter gives each job its class's max_attempts.
  const RetryPolicy& r = s.backend.retry;
  for (std::size_t i = 0; i < w.classes.size(); ++i) {
    const JobClass& c = w.classes[i];
    const std::string at = fmt::format("workload.classes[{}]", i);
    if (!honoured("workload.classes.retry", system.honours)) {
      out.push_back(
          fmt::format("{}: the real {}'s adapter gives every job the one retry "
                      "policy (its system.json does not honour "
                      "workload.classes.retry)",
                      at, system.system));
      break;
    }
    if (c.name.find_first_of(" \t\r\n=") != std::string::npos) {
      out.push_back(
          fmt::format("{}.name: the real {}'s enqueuer reads a class's name as one "
                      "word without '=', got \"{}\"",
                      at, system.system, c.name));
    }
    if (c.retry.initial_interval != r.initial_interval ||
        c.retry.backoff_coefficient != r.backoff_coefficient ||
        c.retry.max_interval != r.max_interval || c.retry.jitter != r.jitter ||
        c.retry.schedule != r.schedule) {
      out.push_back(
          fmt::format("{}.retry: the real {} is given a class's max_attempts only; "
                      "its backoff must be backend.retry's",
                      at, system.system));
    }
    for (const auto& [field, set] :
         {std::pair{"serial", c.serial}, std::pair{"singleton", c.singleton}}) {
      if (set && !honoured(std::string("workload.classes.") + field, system.honours)) {
        out.push_back(
            fmt::format("{}.{}: the real {} has no {} job class (its system.json "
                        "does not honour workload.classes.{})",
                        at, field, system.system, field, field));
      }
    }
  }
  if (w.checkpointing) {
    out.push_back(fmt::format("workload.checkpointing: the real {}'s jobs save no checkpoints",
                              system.system));
  }
  if (w.cancel.cooperative_fraction < 1 && !honoured("workload.cancel", system.honours)) {
    out.push_back(
        fmt::format("workload.cancel.cooperative_fraction: the real {}'s jobs all "
                    "behave alike, so it must be 1, got {}",
                    system.system, w.cancel.cooperative_fraction));
  }
  if (w.queue != "default" && !honoured("workload.queue", system.honours)) {
    out.push_back(
        fmt::format("workload.queue: the real {} is not given a queue name, so it "
                    "must be \"default\", got \"{}\"",
                    system.system, w.queue));
  }
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    if (s.events[i].kind == ScenarioEvent::Kind::kDirective) {
      out.push_back(
          fmt::format("events[{}].kind: a directive is an OJS backend's command; the "
                      "real {} has no such control",
                      i, system.system));
    }
    if (s.events[i].kind == ScenarioEvent::Kind::kOomKillChild &&
        !honoured("events.oom_kill_child", system.honours)) {
      out.push_back(fmt::format(
          "events[{}].kind: oom_kill_child kills the pool child that runs a job, and the real "
          "{}'s adapter names none (its system.json does not honour events.oom_kill_child)",
          i, system.system));
    }
  }
  return out;
}

std::string expand(const std::string& text, const std::map<std::string, std::string>& values,
                   const std::string& where) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      out += text[i];
      continue;
    }
    const std::size_t close = text.find('}', i);
    const std::string name = text.substr(i + 1, close == std::string::npos ? 0 : close - i - 1);
    const auto it = values.find(name);
    if (close == std::string::npos || it == values.end()) {
      std::string known;
      for (const auto& [k, v] : values) known += (known.empty() ? "{" : ", {") + k + "}";
      throw InputError(
          fmt::format("{}: unknown placeholder in \"{}\", expected one of {}", where, text, known));
    }
    out += it->second;
    i = close;
  }
  return out;
}

}  // namespace drainsim
