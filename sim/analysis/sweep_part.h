// Sweep parts: the file `drainsim sweep --shard I/N` writes (what identifies the sweep and
// the raw runs of one shard), reading it back, and merging the parts of one sweep into the
// whole, which sweep_of (sweep.h) aggregates exactly as an unsharded sweep. Every number
// is written in shortest round-trip form, so a part read back holds the same doubles as
// the runs that wrote it. Pure functions; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/sweep.h"

namespace drainsim {

// The "format" of a part file; a file without it is not a part.
inline constexpr const char* kSweepPartFormat = "drainsim-sweep-part/1";

// {"format": kSweepPartFormat, "drainsim_version", "engine": "virtual", "scenario",
//  "scenario_file", "scenario_hash", "overrides", "axes": [{"path", "values"}], "seeds",
//  "shard": {"index", "count"}, "complete", "runs_total" (of the shard),
//  "runs": [{"task", "seed", "result_hash", "audit": {"ok", "error_count", "errors"},
//            "warnings": [io/results.h warning_json, ...] (absent in older parts:
//            none), "metrics": {KEY: number or null}}]}
nlohmann::json sweep_part_json(const SweepPart& part);

// Reads a part file's text; `source` (the file name) starts every message. Checks the
// format, every field's type, and that the runs are in task order, belong to the shard,
// have the seed their task gives, and that "complete" says whether the slice is all there.
struct PartParse {
  std::optional<SweepPart> part;
  std::string error;
};
PartParse parse_sweep_part(std::string_view text, std::string_view source);

struct NamedPart {
  std::string file;  // for messages
  SweepPart part;
};

// Joins the parts of one sweep into the whole (shard {0, 1}, every run in task order).
// Refuses, naming the file and what differs: a part that is not complete (interrupted), a
// part of another sweep (drainsim version, scenario name, scenario file contents,
// overrides, axes, seeds, or number of shards differ from the first part's), a shard given
// twice, and a missing shard. The order of the parts does not matter.
struct PartMerge {
  std::optional<SweepPart> whole;
  std::string error;
};
PartMerge merge_sweep_parts(const std::vector<NamedPart>& parts);

}  // namespace drainsim
