#include "io/tolerances.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/input_file.h"
#include "io/json_reader.h"

namespace drainsim {

using nlohmann::json;

namespace {

// Files of a few cases and metrics: far below any limit of ours.
constexpr std::uint64_t kMaxTolerancesBytes = std::uint64_t{1} << 20;

Tolerance read_tolerance(const Reader& r) {
  r.allow({"absolute", "relative", "reason"});
  r.need("reason", "why this margin (a non-empty string)");
  if (!r.find("absolute") && !r.find("relative")) {
    r.context().fail(r.path(), "give \"absolute\", \"relative\" or both");
  }
  Tolerance t;
  r.number("absolute", t.absolute, Range{});
  r.number("relative", t.relative, Range{});
  r.string("reason", t.reason, /*non_empty=*/true);
  return t;
}

// The object at `key` of `r`, each member a tolerance of a metric of the table.
std::map<std::string, Tolerance, std::less<>> read_metrics(const Reader& r, std::string_view key) {
  std::map<std::string, Tolerance, std::less<>> out;
  const Reader metrics = r.object(key);
  std::vector<std::string_view> known;
  for (const Metric& m : drainsim::metrics()) known.push_back(m.name);
  metrics.allow(known, " (a metric of the summary)");
  for (const std::string_view name : known) {
    if (metrics.find(name)) out.emplace(name, read_tolerance(metrics.object(name)));
  }
  return out;
}

}  // namespace

double Tolerance::margin(double reference_mean) const {
  return std::max(absolute, relative * std::fabs(reference_mean));
}

Tolerances::Tolerances() {
  units[Unit::kCount] = {1, 0.10, "a job either way, or a tenth of the reference's count"};
  units[Unit::kSeconds] = {0.25, 0.05,
                           "a quarter second (a program's start-up, a poll) or 5 % of the "
                           "reference's time"};
  units[Unit::kFraction] = {0.01, 0.10, "a percentage point, or a tenth of the reference's"};
}

const Tolerance& Tolerances::of(std::string_view case_name, std::string_view name) const {
  if (const auto c = cases.find(case_name); c != cases.end()) {
    if (const auto t = c->second.metrics.find(name); t != c->second.metrics.end()) return t->second;
  }
  if (const auto t = metrics.find(name); t != metrics.end()) return t->second;
  return units.at(metric(name).unit);
}

Tolerances read_tolerances(const std::string& path) {
  const json doc = parse_json(read_input_file(path, kMaxTolerancesBytes, "a tolerances file"), path);
  const Context c(path);
  if (!doc.is_object()) c.expected("", "an object with \"units\", \"metrics\" or \"cases\"", doc);
  const Reader root(c, doc, "");
  root.allow({"units", "metrics", "cases"});
  Tolerances out;
  out.source = path;
  if (root.find("units")) {
    const Reader units = root.object("units");
    const auto spellings = names(Unit{});
    units.allow(std::vector<std::string_view>(spellings.begin(), spellings.end()));
    for (const Unit u : all_values<Unit>()) {
      if (units.find(name_of(u))) out.units[u] = read_tolerance(units.object(name_of(u)));
    }
  }
  if (root.find("metrics")) out.metrics = read_metrics(root, "metrics");
  if (root.find("cases")) {
    const Reader cases = root.object("cases");
    for (const auto& [name, value] : root.find("cases")->items()) {
      const Reader one = cases.object(name);
      one.allow({"reason", "metrics"});
      one.need("reason", "why these tolerances hold for the case (a non-empty string)");
      CaseTolerances& t = out.cases[name];
      one.string("reason", t.reason, /*non_empty=*/true);
      if (one.find("metrics")) t.metrics = read_metrics(one, "metrics");
    }
  }
  return out;
}

}  // namespace drainsim
