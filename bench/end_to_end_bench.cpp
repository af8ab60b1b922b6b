// End to end: the reference scenario (scenarios/bench-reference.json: one simulated hour,
// 100 pods x 10 slots, 1,400 jobs/s, rolling restarts and OOM kills) run with
// run_scenario on the virtual engine, as `drainsim run` does minus reading the file and
// writing the results (the results document and its hash are built). One iteration is one
// whole run.
//   BM_Reference/sim_minutes:N/timeline:0   the first N minutes (--sim_minutes, default
//       60: the whole hour; --smoke: 1) and the events in them, timeline off
//   BM_Reference/sim_minutes:N/timeline:1   the same with the timeline, spilled to
//       temporary files as the run goes and written as `drainsim run --timeline` writes it
//       (write_results_once) to a sink that only counts the bytes (counter results_MB).
//       bench/README.md gives the ratio of the two, both from the same run of this
//       executable.
//   BM_Floor/sim_minutes:N   the floor (issue 19): the least work any simulator of those
//       minutes does per job, and nothing else. The same arrivals and durations (the run's
//       samplers on the run's random streams), a min-heap of the busy slots' completion
//       times (replicas x concurrency slots) and a FIFO of the jobs waiting for one: two
//       draws, one push and one pop per job. bench/README.md reports BM_Reference as a
//       fraction of it, both from the same run of this executable.
// Items are simulated jobs (jobs_enqueued), so items_per_second is simulated jobs per
// second of CPU time; sim_s_per_wall_s is simulated seconds (the run's end time) per second
// of CPU time (one thread: CPU time is the wall time of an otherwise idle core).
// Memory: this executable counts its heap (global operator new/delete, malloc_usable_size
// bytes): peak_heap_MB is the run's peak of live heap bytes above what was live before it
// started; maxrss_MB is the process's peak resident set (getrusage) after the run, which
// includes the program and earlier runs.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <functional>
#include <new>
#include <queue>
#include <string>

#include "bench_main.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "model/sampler.h"
#include "run/run_scenario.h"

namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};

void* counted(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  const auto n = static_cast<std::int64_t>(malloc_usable_size(p));
  const std::int64_t live = g_live.fetch_add(n, std::memory_order_relaxed) + n;
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return p;
}

void uncounted(void* p) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

void* aligned(std::size_t n, std::align_val_t a) {
  void* p = nullptr;
  if (posix_memalign(&p, static_cast<std::size_t>(a), n == 0 ? 1 : n) != 0) p = nullptr;
  return counted(p);
}

}  // namespace

void* operator new(std::size_t n) { return counted(std::malloc(n == 0 ? 1 : n)); }
void* operator new[](std::size_t n) { return counted(std::malloc(n == 0 ? 1 : n)); }
void* operator new(std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return aligned(n, a); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }

namespace drainsim::bench {
namespace {

// The reference scenario cut to its first `minutes` (events after that dropped).
Scenario reference(int minutes) {
  Scenario s =
      load_scenario_file(std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/bench-reference.json");
  const Duration until = std::min<Duration>(s.duration, minutes * kMinute);
  std::erase_if(s.events, [&](const ScenarioEvent& e) { return e.at >= until; });
  s.duration = until;
  return s;
}

double maxrss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // kB on Linux
}

void BM_Reference(benchmark::State& state) {
  const Scenario s = reference(static_cast<int>(state.range(0)));
  RunOptions options;
  options.timeline = state.range(1) != 0;
  options.stream_timeline = options.timeline;
  std::int64_t jobs = 0;
  double simulated_s = 0, peak_mb = 0, events = 0, written = 0;
  for (auto _ : state) {
    const std::int64_t before = g_live.load();
    g_peak.store(before);
    const RunOutput out = run_scenario(s, options);
    if (out.timeline) {
      written = 0;
      write_results_once(out.results, *out.timeline, [&](std::string_view piece) {
        written += static_cast<double>(piece.size());
      });
    }
    peak_mb = std::max(peak_mb, static_cast<double>(g_peak.load() - before) / 1e6);
    if (!out.summary.audit.ok) state.SkipWithError("the run's audit failed");
    jobs += out.results["summary"]["jobs_enqueued"].get<std::int64_t>();
    simulated_s += to_seconds(out.ended_at);
    events = static_cast<double>(out.events);
  }
  state.SetItemsProcessed(jobs);
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(simulated_s, benchmark::Counter::kIsRate);
  state.counters["jobs"] = static_cast<double>(jobs) / static_cast<double>(state.iterations());
  state.counters["events"] = events;
  state.counters["peak_heap_MB"] = peak_mb;
  state.counters["maxrss_MB"] = maxrss_mb();
  if (options.timeline) state.counters["results_MB"] = written / 1e6;
}

void BM_Floor(benchmark::State& state) {
  const Scenario s = reference(static_cast<int>(state.range(0)));
  const std::size_t slots = static_cast<std::size_t>(s.platform.replicas) *
                            static_cast<std::size_t>(s.worker.concurrency);
  std::int64_t jobs = 0;
  for (auto _ : state) {
    const Rng root(s.seed);
    Rng arrival_rng = root.fork(static_cast<std::uint64_t>(Stream::kArrivals));
    Rng duration_rng = root.fork(static_cast<std::uint64_t>(Stream::kDurations));
    ArrivalSampler arrivals(s.workload.arrival);
    DurationSampler durations(s.workload.job_duration);
    std::priority_queue<Time, std::vector<Time>, std::greater<>> busy;  // completion times
    std::deque<Duration> backlog;  // the work of the jobs waiting for a slot
    for (Time t = arrivals.next(arrival_rng); t < s.duration; t = arrivals.next(arrival_rng)) {
      while (!busy.empty() && busy.top() <= t) {  // slots freed by now take the backlog
        const Time freed = busy.top();
        busy.pop();
        if (!backlog.empty()) {
          busy.push(freed + backlog.front());
          backlog.pop_front();
        }
      }
      const Duration work = durations.sample(duration_rng);
      if (busy.size() < slots) {
        busy.push(t + work);
      } else {
        backlog.push_back(work);
      }
      ++jobs;
    }
    benchmark::DoNotOptimize(busy.size());
  }
  state.SetItemsProcessed(jobs);
  state.counters["jobs"] = static_cast<double>(jobs) / static_cast<double>(state.iterations());
}

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  const Flags flags = parse_flags(argc, argv);
  benchmark::RegisterBenchmark("BM_Reference", BM_Reference)
      ->ArgNames({"sim_minutes", "timeline"})
      ->Args({flags.sim_minutes, 0})
      ->Args({flags.sim_minutes, 1})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Floor", BM_Floor)
      ->ArgName("sim_minutes")
      ->Arg(flags.sim_minutes)
      ->Unit(benchmark::kMillisecond);
  return run(argc, argv);
}
