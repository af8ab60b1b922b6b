// Tolerances: how far a source's metric may be from the reference's and still be
// equivalent to it (analysis/fidelity.h), declared with a reason before any table is read,
// never tuned after (docs/fidelity.md). A tolerance is ±max(absolute, relative × |the
// reference's mean|). The most specific one holds: the case's own for a metric, else the
// metric's, else its unit's. A tolerances file (drainsim fidelity --tolerances; the suite's
// scenarios/fidelity/tolerances.json):
//   {"units":   {"count": T, "seconds": T, "fraction": T},
//    "metrics": {"job_loss": T, ...},
//    "cases":   {"CASE": {"reason": "why these hold for it", "metrics": {"METRIC": T}}}}
//   T = {"absolute": number >= 0, "relative": number >= 0, "reason": "why this margin"}
// Every part is optional; a unit the file does not give keeps drainsim's default.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "model/metrics.h"

namespace drainsim {

struct Tolerance {
  double absolute = 0;
  double relative = 0;
  std::string reason;

  // The margin for a reference whose mean is `reference_mean`.
  double margin(double reference_mean) const;
};

struct CaseTolerances {
  std::string reason;
  std::map<std::string, Tolerance, std::less<>> metrics;
};

struct Tolerances {
  // drainsim's defaults: counts ±max(1, 10 %), seconds ±max(0.25 s, 5 %), fractions
  // ±max(0.01, 10 %).
  Tolerances();

  // The tolerance of `metric` (model/metrics.h) in the case `case_name` ("" for none).
  // REQUIRES: a metric of the table.
  const Tolerance& of(std::string_view case_name, std::string_view metric) const;

  std::map<Unit, Tolerance> units;
  std::map<std::string, Tolerance, std::less<>> metrics;
  std::map<std::string, CaseTolerances, std::less<>> cases;
  std::string source = "drainsim's defaults";  // where they came from, for the table
};

// The tolerances file `path`. Throws InputError naming the file, the JSON path and what was
// expected: an unknown unit, metric or field, a negative or missing number, a missing reason.
Tolerances read_tolerances(const std::string& path);

}  // namespace drainsim
