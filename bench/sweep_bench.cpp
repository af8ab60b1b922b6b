// Sweep scaling: run_sweep (as `drainsim sweep` runs it, output not written) over 200 runs
// of a 30-minute, 30-pod scenario, on 1 and on 2 threads. The scenario is the shipped
// rolling restart scaled up: scenarios/rolling-restart.json with 30 pods, 20 jobs/s (the
// same load per pod) and a 30-minute duration (about 36,000 jobs a run; its rollout at
// 3m); the grid is worker.grace_period=5s..100s/5s (20 points) x 10 seeds. One iteration
// is one whole sweep; wall time (UseRealTime), since the point is using both cores.
//   BM_Sweep/threads:N   items_per_second = runs per wall second; the speed-up is the
//                        ratio of the threads:2 and threads:1 figures
// --smoke: 2 points x 2 seeds of a 2-minute run.
#include <string>

#include "analysis/sweep.h"
#include "bench_main.h"

namespace drainsim::bench {
namespace {

bool g_smoke = false;

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

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  g_smoke = parse_flags(argc, argv).smoke;
  benchmark::RegisterBenchmark("BM_Sweep", BM_Sweep)
      ->ArgName("threads")
      ->Arg(1)
      ->Arg(2)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  return run(argc, argv);
}
