#include "analysis/warning_tally.h"

#include <algorithm>

#include <fmt/format.h>

#include "io/results.h"

namespace drainsim {

std::vector<WarningTally> tally_warnings(const std::vector<SeedRun>& runs) {
  std::vector<WarningTally> out;
  for (const SeedRun& r : runs) {
    std::vector<std::string_view> seen;  // a code counts once per run
    for (const Warning& w : r.warnings) {
      if (std::find(seen.begin(), seen.end(), w.code) != seen.end()) continue;
      seen.push_back(w.code);
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const WarningTally& t) { return t.first.code == w.code; });
      if (it == out.end()) {
        out.push_back({w, r.seed, 0, 0});
        it = out.end() - 1;
      }
      ++it->runs;
    }
  }
  for (WarningTally& t : out) t.of = runs.size();
  return out;
}

std::string tally_text(const WarningTally& t) {
  if (t.of == 1) return fmt::format("{}: {}", t.first.code, t.first.message);
  return fmt::format("{} in {} of {} runs (seed {}: {})", t.first.code, t.runs, t.of, t.seed,
                     t.first.message);
}

nlohmann::json tally_json(const WarningTally& t) {
  nlohmann::json j = warning_json(t.first);
  j["runs"] = t.runs;
  j["of"] = t.of;
  j["seed"] = t.seed;
  return j;
}

nlohmann::json tallies_json(const std::vector<WarningTally>& ts) {
  nlohmann::json out = nlohmann::json::array();
  for (const WarningTally& t : ts) out.push_back(tally_json(t));
  return out;
}

}  // namespace drainsim
