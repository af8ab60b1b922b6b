// Sweep scaling: run_sweep (as `drainsim sweep` runs it, output not written) over 200 runs
// of a 30-minute, 30-pod scenario, on 1 and on 2 threads. The scenario is the shipped
// rolling restart scaled up: scenarios/rolling-restart.json with 30 pods, 20 jobs/s (the
// same load per pod) and a 30-minute duration (about 36,000 jobs a run; its rollout at
// 3m); the grid is worker.grace_period=5s..100s/5s (20 points) x 10 seeds. One iteration
// is one whole sweep; wall time (UseRealTime), since the point is using both cores.
//   BM_Sweep/threads:N   items_per_second = runs per wall second; the speed-up is the
//                        ratio of the threads:2 and threads:1 figures
// Tune's cost: run_tune as `drainsim tune scenarios/bench-reference.json` runs it (default
// grid 0s..10m/1s and targets: no job lost, none interrupted) on 2 threads, over
// --tune_seeds=N seeds (default 4; the command's own default is 30). One iteration, wall
// time.
//   BM_Tune/sequential:1  as tune runs: each setting's seeds stop once it cannot meet a
//                         target (docs/tune.md)
//   BM_Tune/sequential:0  every setting on every seed, as tune ran before (issue 19)
//   counters: settings (evaluated, the scenario's own included), runs (kept: the seeds
//   the settings' figures are over), runs_done (with the runs dropped when a setting
//   stopped while a later seed of it ran); the verdicts are the same in both.
// --smoke: the sweep on 2 points x 2 seeds of a 2-minute run; tune on the reference's
// first minute, grid 0s..1m/10s, 2 seeds.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "analysis/sweep.h"
#include "analysis/tune.h"
#include "bench_main.h"

namespace drainsim::bench {
namespace {

bool g_smoke = false;
std::size_t g_tune_seeds = 4;

void BM_Sweep(benchmark::State& state) {
  SweepSpec spec;
  spec.scenario = std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/rolling-restart.json";
  spec.overrides = {"platform.replicas=30",
                    R"(workload.arrival={"kind":"poisson","rate_per_s":20})",
                    g_smoke ? "duration=2m" : "duration=30m"};
  spec.axes.push_back(
      *parse_axis(g_smoke ? "worker.grace_period=5s..10s/5s" : "worker.grace_period=5s..100s/5s")
           .axis);
  spec.seeds = g_smoke ? 2 : 10;
  spec.threads = static_cast<unsigned>(state.range(0));
  std::size_t runs = 0;
  for (auto _ : state) {
    const Sweep sweep = run_sweep(spec);
    if (!sweep.audits_ok()) state.SkipWithError("an audit failed");
    for (const SweepPoint& p : sweep.points) runs += p.runs.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(runs));
  state.counters["runs"] = static_cast<double>(runs) / static_cast<double>(state.iterations());
}

void BM_Tune(benchmark::State& state) {
  TuneSpec spec;
  spec.scenario = std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/bench-reference.json";
  if (g_smoke) spec.overrides = {"duration=1m"};
  for (Duration g = 0; g <= (g_smoke ? kMinute : 10 * kMinute);
       g += g_smoke ? 10 * kSecond : kSecond) {
    spec.grid.push_back(g);
  }
  spec.timeout_grid = {10 * kSecond};
  spec.targets.max_job_loss = 0;
  spec.targets.max_interrupted = 0;
  spec.seeds = g_smoke ? 2 : g_tune_seeds;
  spec.threads = 2;
  spec.sequential = state.range(0) != 0;
  std::size_t settings = 0, runs = 0, runs_done = 0;
  for (auto _ : state) {
    const Tune t = run_tune(spec);
    if (!t.audits_ok()) state.SkipWithError("an audit failed");
    for (const TuneSetting* e : t.settings()) {
      ++settings;
      runs += e->runs.size();
    }
    runs_done += t.runs_done;
  }
  const auto per_iteration = [&](std::size_t n) {
    return static_cast<double>(n) / static_cast<double>(state.iterations());
  };
  state.counters["settings"] = per_iteration(settings);
  state.counters["runs"] = per_iteration(runs);
  state.counters["runs_done"] = per_iteration(runs_done);
  state.counters["seeds"] = static_cast<double>(spec.seeds);
}

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  // --tune_seeds=N, ours alone: read and removed before the shared flags.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).starts_with("--tune_seeds=")) {
      g_tune_seeds = std::max(1, std::atoi(argv[i] + std::strlen("--tune_seeds=")));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  g_smoke = parse_flags(argc, argv).smoke;
  benchmark::RegisterBenchmark("BM_Sweep", BM_Sweep)
      ->ArgName("threads")
      ->Arg(1)
      ->Arg(2)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Tune", BM_Tune)
      ->ArgName("sequential")
      ->Arg(1)
      ->Arg(0)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kSecond);
  return run(argc, argv);
}
