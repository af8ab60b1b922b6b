// What every benchmark executable shares: drainsim's own flags, read and removed before
// Google Benchmark parses the rest, and the run. Flags:
//   --smoke           small inputs, for the CI check that the benchmark runs (ctest bench.*)
//   --sim_minutes=N   end_to_end: simulate the first N minutes of the reference scenario
//                     (default 60, the whole hour; --smoke: 1)
//   --fleet_seconds=N fleet: the reference fleet's arrivals last N seconds (default 180)
// Each NAME_bench.cpp registers its benchmarks from main() with these flags, then calls
// run().
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace drainsim::bench {

struct Flags {
  bool smoke = false;
  int sim_minutes = 60;
  int fleet_seconds = 180;
};

inline Flags parse_flags(int& argc, char** argv) {
  Flags flags;
  bool minutes_given = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      flags.smoke = true;
    } else if (arg.starts_with("--sim_minutes=")) {
      flags.sim_minutes = std::atoi(argv[i] + std::strlen("--sim_minutes="));
      minutes_given = true;
    } else if (arg.starts_with("--fleet_seconds=")) {
      flags.fleet_seconds = std::max(1, std::atoi(argv[i] + std::strlen("--fleet_seconds=")));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (flags.smoke && !minutes_given) flags.sim_minutes = 1;
  if (flags.sim_minutes < 1) flags.sim_minutes = 1;
  return flags;
}

inline int run(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace drainsim::bench
