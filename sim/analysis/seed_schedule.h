// Seed schedule: several settings of a scenario run over the same seeds on a pool of
// threads, each setting's seeds in order, each stopped as soon as the caller's rule says
// its first runs settle it (tune's sequential test, docs/tune.md). A setting keeps exactly
// its first k runs, k the least count at which the rule says stop (every seed when it never
// does); a run of a later seed already under way when it stops is finished and dropped, so
// what is kept depends neither on the thread count nor on timing. Runs are handed out seed
// by seed across the settings (every live setting's first seed, then the second, ...), so
// that a setting settled early costs few runs while the others go on.
// run_seed_schedule is thread-safe to call and uses threads of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/sweep.h"
#include "model/scenario.h"

namespace drainsim {

struct SeedScheduleSpec {
  std::vector<Scenario> settings;    // each run with every seed (its own seed is ignored)
  std::vector<std::uint64_t> seeds;  // REQUIRES: not empty
  unsigned threads = 0;              // 0: std::thread::hardware_concurrency()
  // Called with a setting's index and its first k runs, for k = 1, 2, ... below
  // seeds.size(), each k once and in order, one call at a time (under the schedule's
  // lock, from any of its threads): true stops the setting at k. Empty: every seed.
  std::function<bool(std::size_t setting, const std::vector<SweepRunResult>& runs)> stop;
  // Called on each run's result as it is made (from any of the schedule's threads), to add
  // figures of the caller's own to its metrics; empty: none.
  std::function<void(SweepRunResult&)> derive;
  // Called on the calling thread whenever runs have finished, with the runs done so far
  // (dropped ones included); empty: no reports.
  std::function<void(std::size_t runs_done)> progress;
};

struct SeedSchedule {
  // Per setting, in the order given: its first k runs in seed order (task = seed position).
  std::vector<std::vector<SweepRunResult>> runs;
  std::size_t runs_done = 0;  // every run done, the dropped ones included
};

// Runs every setting as above. A run that throws stops the schedule: no new run starts,
// and the first exception is rethrown once the runs under way have finished.
SeedSchedule run_seed_schedule(const SeedScheduleSpec& spec);

}  // namespace drainsim
