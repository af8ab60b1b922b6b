#include "analysis/sweep_part.h"

#include "io/json_reader.h"
#include "io/results.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace drainsim {

namespace {

using nlohmann::json;

// A field that is missing or of the wrong type, by its path in the file.
class PartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string describe(const json& v) { return show(v); }

// A part's axes, overrides or seeds in a message: whole, so that two parts' can be told
// apart, but cut past 400 characters (a part file is read nested 100 deep at most).
std::string listed(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 400) s = s.substr(0, 397) + "...";
  return s;
}

const json& field(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) {
    throw PartError(fmt::format("{}{}: missing", where.empty() ? "" : where + ".", key));
  }
  return *it;
}

[[noreturn]] void expected(const std::string& path, std::string_view what, const json& got) {
  throw PartError(fmt::format("{}: expected {}, got {}", path, what, describe(got)));
}

std::string join(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

std::string string_at(const json& o, const char* key, const std::string& where = "") {
  const json& v = field(o, key, where);
  if (!v.is_string()) expected(join(where, key), "a string", v);
  return v.get<std::string>();
}

std::uint64_t count_at(const json& o, const char* key, const std::string& where = "") {
  const json& v = field(o, key, where);
  if (!v.is_number_unsigned()) expected(join(where, key), "a whole number >= 0", v);
  return v.get<std::uint64_t>();
}

bool bool_at(const json& o, const char* key, const std::string& where = "") {
  const json& v = field(o, key, where);
  if (!v.is_boolean()) expected(join(where, key), "true or false", v);
  return v.get<bool>();
}

const json& array_at(const json& o, const char* key, const std::string& where = "") {
  const json& v = field(o, key, where);
  if (!v.is_array()) expected(join(where, key), "an array", v);
  return v;
}

std::vector<std::string> strings_at(const json& o, const char* key, const std::string& where = "") {
  std::vector<std::string> out;
  const json& a = array_at(o, key, where);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) expected(fmt::format("{}[{}]", join(where, key), i), "a string", a[i]);
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

// A run's "warnings" (io/results.h warning_json), absent in parts written before them.
std::vector<Warning> warnings_at(const json& o, const std::string& where) {
  std::vector<Warning> out;
  const json& a = array_at(o, "warnings", where);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", join(where, "warnings"), i);
    if (!a[i].is_object()) expected(at, "an object", a[i]);
    Warning w{string_at(a[i], "code", at), string_at(a[i], "message", at), {}};
    const json& figures = field(a[i], "figures", at);
    if (!figures.is_object()) expected(at + ".figures", "an object", figures);
    for (const auto& [name, v] : figures.items()) {
      if (!v.is_number()) expected(fmt::format("{}.figures.{}", at, name), "a number", v);
      w.figures.emplace_back(name, v.get<double>());
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string shard_text(const SweepShard& s) { return fmt::format("{}/{}", s.index, s.count); }

SweepPart read_part(const json& root) {
  if (!root.is_object() || !root.contains("format")) {
    throw PartError(fmt::format(
        "not a sweep part file (no \"format\": \"{}\"); `drainsim sweep --shard I/N` writes them",
        kSweepPartFormat));
  }
  if (root["format"] != kSweepPartFormat) {
    expected("format", fmt::format("\"{}\"", kSweepPartFormat), root["format"]);
  }
  SweepPart p;
  p.drainsim_version = string_at(root, "drainsim_version");
  if (string_at(root, "engine") != "virtual") expected("engine", "\"virtual\"", root["engine"]);
  p.scenario = string_at(root, "scenario");
  p.scenario_file = string_at(root, "scenario_file");
  p.scenario_hash = string_at(root, "scenario_hash");
  p.overrides = strings_at(root, "overrides");

  const json& axes = array_at(root, "axes");
  if (axes.empty()) expected("axes", "at least one axis", axes);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const std::string where = fmt::format("axes[{}]", a);
    if (!axes[a].is_object()) expected(where, "an object", axes[a]);
    SweepAxis axis;
    axis.path = string_at(axes[a], "path", where);
    const json& values = array_at(axes[a], "values", where);
    if (values.empty()) expected(where + ".values", "at least one value", values);
    std::string list;
    for (const json& v : values) {
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      axis.values.push_back(v);
      axis.overrides.push_back(axis.path + "=" + text);
      list += (list.empty() ? "" : ",") + text;
    }
    axis.spec = axis.path + "=" + list;
    p.axes.push_back(std::move(axis));
  }

  const json& seeds = array_at(root, "seeds");
  if (seeds.empty()) expected("seeds", "at least one seed", seeds);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    if (!seeds[i].is_number_unsigned()) {
      expected(fmt::format("seeds[{}]", i), "a whole number >= 0", seeds[i]);
    }
    p.seeds.push_back(seeds[i].get<std::uint64_t>());
  }

  const json& shard = field(root, "shard", "");
  if (!shard.is_object()) expected("shard", "an object {\"index\", \"count\"}", shard);
  p.shard.index = count_at(shard, "index", "shard");
  p.shard.count = count_at(shard, "count", "shard");
  if (p.shard.count == 0 || p.shard.index >= p.shard.count) {
    expected("shard", "0 <= index < count", shard);
  }

  const json& runs = array_at(root, "runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = fmt::format("runs[{}]", i);
    const json& r = runs[i];
    if (!r.is_object()) expected(where, "an object", r);
    SweepRunResult run;
    run.task = count_at(r, "task", where);
    const std::size_t want = i == 0 ? p.shard.index : p.runs.back().task + p.shard.count;
    if (run.task != want) {
      throw PartError(fmt::format(
          "{}.task: expected {} (shard {} runs the tasks {}, {}, ... in order), got {}", where,
          want, shard_text(p.shard), p.shard.index, p.shard.index + p.shard.count, run.task));
    }
    if (run.task >= p.tasks()) {
      throw PartError(
          fmt::format("{}.task: {} is past the sweep's {} runs", where, run.task, p.tasks()));
    }
    run.run.seed = count_at(r, "seed", where);
    if (run.run.seed != p.seeds[run.task % p.seeds.size()]) {
      throw PartError(fmt::format("{}.seed: task {} runs seed {}, got {}", where, run.task,
                                  p.seeds[run.task % p.seeds.size()], run.run.seed));
    }
    run.run.result_hash = string_at(r, "result_hash", where);
    const std::string audit_where = where + ".audit";
    const json& audit = field(r, "audit", where);
    if (!audit.is_object()) expected(audit_where, "an object", audit);
    run.run.audit_ok = bool_at(audit, "ok", audit_where);
    run.run.audit_error_count =
        static_cast<std::int64_t>(count_at(audit, "error_count", audit_where));
    run.run.audit_errors = strings_at(audit, "errors", audit_where);
    if (r.contains("warnings")) run.run.warnings = warnings_at(r, where);
    const json& metrics = field(r, "metrics", where);
    if (!metrics.is_object()) expected(where + ".metrics", "an object", metrics);
    for (const auto& [key, v] : metrics.items()) {
      if (v.is_null()) {
        run.metrics.emplace(key, std::nullopt);
      } else if (v.is_number()) {
        run.metrics.emplace(key, v.get<double>());
      } else {
        expected(fmt::format("{}.metrics.{}", where, key), "a number or null", v);
      }
    }
    p.runs.push_back(std::move(run));
  }
  if (bool_at(root, "complete") != p.complete()) {
    throw PartError(fmt::format("complete: says {} but the part has {} of the shard's {} runs",
                                root["complete"].dump(), p.runs.size(), p.slice_size()));
  }
  return p;
}

json axes_json(const std::vector<SweepAxis>& axes) {
  json out = json::array();
  for (const SweepAxis& a : axes) out.push_back({{"path", a.path}, {"values", a.values}});
  return out;
}

}  // namespace

json sweep_part_json(const SweepPart& part) {
  json runs = json::array();
  for (const SweepRunResult& r : part.runs) {
    json metrics = json::object();
    for (const auto& [key, v] : r.metrics) metrics[key] = v ? json(*v) : json(nullptr);
    runs.push_back({{"task", r.task},
                    {"seed", r.run.seed},
                    {"result_hash", r.run.result_hash},
                    {"audit",
                     {{"ok", r.run.audit_ok},
                      {"error_count", r.run.audit_error_count},
                      {"errors", r.run.audit_errors}}},
                    {"warnings", warnings_json(r.run.warnings)},
                    {"metrics", metrics}});
  }
  return {{"format", kSweepPartFormat},
          {"drainsim_version", part.drainsim_version},
          {"engine", "virtual"},
          {"scenario", part.scenario},
          {"scenario_file", part.scenario_file},
          {"scenario_hash", part.scenario_hash},
          {"overrides", part.overrides},
          {"axes", axes_json(part.axes)},
          {"seeds", part.seeds},
          {"shard", {{"index", part.shard.index}, {"count", part.shard.count}}},
          {"complete", part.complete()},
          {"runs_total", part.slice_size()},
          {"runs", runs}};
}

PartParse parse_sweep_part(std::string_view text, std::string_view source) {
  ParsedJson parsed = try_parse_json(text);
  if (!parsed.value) {
    return {std::nullopt,
            fmt::format("{}: not valid JSON: {} (is it a sweep part file?)", source, parsed.error)};
  }
  const json& root = *parsed.value;
  try {
    return {read_part(root), {}};
  } catch (const PartError& e) {
    return {std::nullopt, fmt::format("{}: {}", source, e.what())};
  } catch (const json::exception& e) {
    return {std::nullopt, fmt::format("{}: {}", source, e.what())};
  }
}

PartMerge merge_sweep_parts(const std::vector<NamedPart>& parts) {
  const auto fail = [](std::string message) { return PartMerge{std::nullopt, std::move(message)}; };
  if (parts.empty()) return fail("no part files given");
  const NamedPart& first = parts.front();
  for (const NamedPart& np : parts) {
    const SweepPart& p = np.part;
    if (!p.complete()) {
      return fail(fmt::format("{}: shard {} was interrupted ({} of its {} runs); run it again",
                              np.file, shard_text(p.shard), p.runs.size(), p.slice_size()));
    }
    const SweepPart& f = first.part;
    const auto differs = [&](std::string_view what) {
      return fail(fmt::format("{}: not the same sweep as {}: {}", np.file, first.file, what));
    };
    if (p.drainsim_version != f.drainsim_version) {
      return differs(fmt::format("written by drainsim {}, {} by drainsim {}", p.drainsim_version,
                                 first.file, f.drainsim_version));
    }
    if (p.scenario_hash != f.scenario_hash) {
      return differs(fmt::format("the scenario file's contents differ (scenario_hash {} vs {})",
                                 p.scenario_hash, f.scenario_hash));
    }
    if (p.scenario != f.scenario) {
      return differs(
          fmt::format("the scenario differs (\"{}\" vs \"{}\")", p.scenario, f.scenario));
    }
    if (p.overrides != f.overrides) {
      return differs(fmt::format("the overrides differ ({} vs {})", listed(json(p.overrides)),
                                 listed(json(f.overrides))));
    }
    if (axes_json(p.axes) != axes_json(f.axes)) {
      return differs(fmt::format("the axes differ ({} vs {})", listed(axes_json(p.axes)),
                                 listed(axes_json(f.axes))));
    }
    if (p.seeds != f.seeds) {
      return differs(
          fmt::format("the seeds differ ({} vs {})", listed(json(p.seeds)), listed(json(f.seeds))));
    }
    if (p.shard.count != f.shard.count) {
      return differs(fmt::format("it is shard {} but {} is shard {}: a different number of shards",
                                 shard_text(p.shard), first.file, shard_text(f.shard)));
    }
  }

  const std::size_t n = first.part.shard.count;
  std::vector<const NamedPart*> by_index(n, nullptr);
  for (const NamedPart& np : parts) {
    const NamedPart*& slot = by_index[np.part.shard.index];
    if (slot != nullptr) {
      return fail(fmt::format("{}: shard {} is also given as {}", np.file,
                              shard_text(np.part.shard), slot->file));
    }
    slot = &np;
  }
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < n; ++i) {
    if (by_index[i] == nullptr) missing.push_back(shard_text({i, n}));
  }
  if (!missing.empty()) {
    std::string given;
    for (const NamedPart& np : parts) {
      given +=
          fmt::format("{}{} ({})", given.empty() ? "" : ", ", np.file, shard_text(np.part.shard));
    }
    return fail(fmt::format("{} of {} shards missing: {}; given: {}", missing.size(), n,
                            fmt::join(missing, ", "), given));
  }

  SweepPart whole = first.part;
  whole.shard = {};
  whole.runs.clear();
  whole.runs.reserve(whole.tasks());
  for (std::size_t t = 0; t < whole.tasks(); ++t) {
    whole.runs.push_back(by_index[t % n]->part.runs[t / n]);
  }
  return {std::move(whole), {}};
}

}  // namespace drainsim
