// Sweep and comparison files as the widgets show them (reader_internal.h).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/duration.h"
#include "base/parse.h"
#include "reader/reader_internal.h"

namespace drainsim::viewer::detail {

namespace {

Interval interval_of(const json& v) {
  Interval i;
  if (!v.is_object()) return i;
  auto num = [&](const char* k) {
    return v.contains(k) && v[k].is_number() ? v[k].get<double>() : 0.0;
  };
  i.n = v.contains("n") && v["n"].is_number_integer() ? v["n"].get<int>() : 0;
  if (!v.contains("mean") || !v["mean"].is_number()) i.n = 0;
  i.mean = num("mean");
  i.half_width = num("half_width");
  i.low = v.contains("low") && v["low"].is_number() ? num("low") : i.mean;
  i.high = v.contains("high") && v["high"].is_number() ? num("high") : i.mean;
  return i;
}

std::vector<NamedInterval> intervals_of(const json& metrics) {
  std::vector<NamedInterval> out;
  if (!metrics.is_object()) return out;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    out.push_back({it.key(), interval_of(it.value())});
  }
  return out;
}

// What is wrong with a sweep's or a comparison's schema_version (`kind` names the file),
// empty when this viewer reads it.
std::string version_problem(const json& doc, const char* kind) {
  const auto it = doc.find("schema_version");
  if (it == doc.end()) return {};
  const std::optional<int> major = version_major(it->is_string() ? it->get<std::string>() : "");
  if (!major) {
    return fmt::format("schema_version: expected a version like \"{}.0\", got {}",
                       kReportSchemaMajor, shown(*it));
  }
  if (*major != kReportSchemaMajor) {
    return fmt::format(
        "a {} file of schema_version {}, which this viewer cannot read (it reads {}.x); use the "
        "drainsim-viewer of the drainsim that wrote it",
        kind, shown(*it), kReportSchemaMajor);
  }
  return {};
}

}  // namespace

Document read_sweep(const json& doc, const std::string& path) {
  if (std::string v = version_problem(doc, "sweep"); !v.empty()) return fail(path, v);
  if (!doc["axes"].is_array() || !doc["points"].is_array()) {
    return fail(path, "a sweep file needs arrays \"axes\" and \"points\"");
  }
  Sweep s;
  s.path = path;
  s.scenario = doc.value("scenario", std::string());
  s.seeds = doc.contains("seeds") && doc["seeds"].is_array() ? static_cast<int>(doc["seeds"].size())
                                                             : doc.value("seeds", 0);
  std::vector<std::vector<std::string>> axis_labels;
  for (const json& a : doc["axes"]) {
    s.axes.push_back(a.value("path", std::string("?")));
    std::vector<std::string> labels;
    if (a.contains("values") && a["values"].is_array()) {
      for (const json& v : a["values"])
        labels.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    axis_labels.push_back(std::move(labels));
  }
  std::map<std::string, bool> names;
  for (const json& p : doc["points"]) {
    SweepPointData pt;
    const json values = p.value("values", json::object());
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      const json v = values.value(s.axes[a], json(nullptr));
      const std::string label = v.is_string() ? v.get<std::string>() : v.dump();
      double x;
      if (v.is_number()) {
        x = v.get<double>();
      } else if (const auto d = v.is_string() ? parse_duration(label) : std::nullopt) {
        x = to_seconds(*d);
      } else {
        const auto& ls = axis_labels[a];
        x = static_cast<double>(std::find(ls.begin(), ls.end(), label) - ls.begin());
      }
      pt.x.push_back(x);
      pt.labels.push_back(label);
    }
    pt.metrics = intervals_of(p.value("metrics", json::object()));
    for (const NamedInterval& m : pt.metrics) names[m.metric] = true;
    s.points.push_back(std::move(pt));
  }
  for (const auto& [name, unused] : names) s.metrics.push_back(name);
  s.complete =
      !doc.contains("complete") || !doc["complete"].is_boolean() || doc["complete"].get<bool>();
  s.points_total = doc.contains("points_total") && doc["points_total"].is_number_integer()
                       ? doc["points_total"].get<int>()
                       : static_cast<int>(s.points.size());
  Document d;
  d.sweep = std::move(s);
  return d;
}

Document read_comparison(const json& doc, const std::string& path) {
  if (std::string v = version_problem(doc, "comparison"); !v.empty()) return fail(path, v);
  if (!doc["profiles"].is_array()) return fail(path, "a comparison needs an array \"profiles\"");
  Comparison c;
  c.path = path;
  c.scenario = doc.value("scenario", std::string());
  c.seeds = doc.contains("seeds") && doc["seeds"].is_array() ? static_cast<int>(doc["seeds"].size())
                                                             : doc.value("seeds", 0);
  if (doc.contains("metrics") && doc["metrics"].is_array()) {
    for (const json& m : doc["metrics"]) {
      if (m.is_string()) c.metrics.push_back(m.get<std::string>());
    }
  }
  for (const json& p : doc["profiles"]) {
    ProfileRow row;
    row.profile = p.value("profile", p.value("name", std::string("?")));
    row.metrics = intervals_of(p.value("metrics", json::object()));
    if (c.metrics.empty()) {
      for (const NamedInterval& m : row.metrics) c.metrics.push_back(m.metric);
    }
    c.profiles.push_back(std::move(row));
  }
  Document d;
  d.comparison = std::move(c);
  return d;
}

Document fail(const std::string& path, const std::string& what) {
  Document d;
  d.error = path + ": " + what;
  return d;
}

std::optional<int> version_major(const std::string& text) {
  const std::optional<std::pair<int, int>> version = parse_version(text);
  return version ? std::optional(version->first) : std::nullopt;
}

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace drainsim::viewer::detail

namespace drainsim::viewer {

const Interval* SweepPointData::metric(std::string_view name) const {
  for (const NamedInterval& m : metrics) {
    if (m.metric == name) return &m.value;
  }
  return nullptr;
}

const Interval* ProfileRow::metric(std::string_view name) const {
  for (const NamedInterval& m : metrics) {
    if (m.metric == name) return &m.value;
  }
  return nullptr;
}

}  // namespace drainsim::viewer
