// The reference fleet on the engines with real worker cores (issue 39): how fast they can
// pace it, as a ratio to what bare Boost.Asio does on the same threads in the same run.
// The fleet: scenarios/bench-reference.json (100 pods x 10 slots, Poisson 1,400 jobs/s,
// lognormal jobs of median 200 ms) without its events, cut to --fleet_seconds of arrivals
// (default 180) and a third as much settle (--smoke: 3 s and 60 s; a run ends once every
// job is done, so a long settle costs nothing when the engine keeps up). A run keeps up when
// it completes every job the virtual engine completes in the cut (all of them in the full
// cut), it does not warn engine_behind, and its timers' lateness p99 (results run.pacing)
// is 1 ms of real time at most (issue 39's bound); it keeps up strictly when its
// handlers' lateness p99 (posted functions, requests waiting for the models) is too.
//   BM_AsioFloor  the floor: an io_context on 2 threads, a models' strand and 100 workers'
//       strands, 1,000 jobs in flight; a job is its arrival (a timer on the models' strand,
//       due at once), its hand-over (a post to a worker's strand), its body's end (a timer
//       there, due at once) and its ack (a post back): what any engine on Asio does per job
//       at the least. items_per_second = jobs per wall second (--smoke: 5,000 jobs).
//       BM_Fleet and BM_FleetMaxScale run the same floor with their run's own mix: its
//       timers and handlers per job completed (results run.pacing; a handler that waited
//       for the models' lock taken as a post).
//   BM_Fleet/engine:E/scale:S  the fleet on engine E (0 realtime with sleeping job bodies,
//       1 process with 100 drainsim-worker processes) at --time-scale S: items_per_second =
//       jobs completed per wall second; kept_up and kept_up_strict (1 or 0),
//       timers_late_p99_real_ms, handlers_late_p99_real_ms, bodies_late_percent,
//       completed_percent; timers_per_job and posts_per_job (the run's
//       mix), floor_jobs_per_s (the floor with that mix, measured just after in the same
//       process) and ratio_to_floor = the jobs per second the scale asks for (1,400 S) over
//       the floor's.
//   BM_FleetMaxScale/engine:E  the highest time scale at which engine E keeps up, by
//       bisection between 1 and 200 (realtime) or 1 and 40 (process), 6 runs (--smoke: 1):
//       max_scale, max_jobs_per_s (1,400 x max_scale), floor_jobs_per_s, ratio_to_floor.
//       One iteration, wall time; minutes on the full cut.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "bench_main.h"
#include "io/scenario_reader.h"
#include "run/run_scenario.h"

namespace drainsim::bench {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

Flags g_flags;
constexpr double kArrivalsPerS = 1400;  // the reference scenario's

// What a job costs the engine in Asio's terms: timers fired and handlers run (posts to a
// strand, or waits for the models' lock, each taken as a post), on average.
struct JobMix {
  double timers = 2, posts = 2;  // the least: an arrival and a body's end, a hand-over and an ack
};

// BM_AsioFloor's jobs per wall second on `threads` threads, `jobs` jobs in all: each job
// fires mix.timers timers (due at once) on the strand it is on and makes mix.posts posts,
// each to the other side (the models' strand, or worker i % 100's), then ends on the
// models' strand, which starts the slot's next job. Fractional counts are spread over the
// jobs.
double asio_floor(int threads, std::int64_t jobs, JobMix mix) {
  using Strand = asio::strand<asio::io_context::executor_type>;
  constexpr int kWorkers = 100, kSlots = 1000;
  asio::io_context io;
  const Strand models = asio::make_strand(io);
  std::vector<Strand> workers;
  for (int i = 0; i < kWorkers; ++i) workers.push_back(asio::make_strand(io));
  std::vector<std::unique_ptr<asio::steady_timer>> timers;
  for (int i = 0; i < kSlots; ++i) timers.push_back(std::make_unique<asio::steady_timer>(io));
  std::int64_t launched = 0;               // on the models' strand
  double timers_owed = 0, posts_owed = 0;  // the fractions carried to the next job
  std::atomic<std::int64_t> done{0};
  std::function<void(int)> arrive;
  // Job i's next step; `models_side`: it runs on the models' strand (else its worker's).
  std::function<void(int, int, int, bool)> step = [&](int i, int t, int p, bool models_side) {
    const Strand& here = models_side ? models : workers[static_cast<std::size_t>(i % kWorkers)];
    const Strand& there = models_side ? workers[static_cast<std::size_t>(i % kWorkers)] : models;
    if (t > 0 && (t >= p || p == 0)) {
      asio::steady_timer& timer = *timers[static_cast<std::size_t>(i)];
      timer.expires_at(Clock::now());
      timer.async_wait(
          asio::bind_executor(here, [&, i, t, p, models_side](const boost::system::error_code&) {
            step(i, t - 1, p, models_side);
          }));
    } else if (p > 0) {
      asio::post(there, [&, i, t, p, models_side] { step(i, t, p - 1, !models_side); });
    } else if (!models_side) {
      asio::post(models, [&, i] { step(i, 0, 0, true); });
    } else {
      if (done.fetch_add(1) + 1 == jobs) io.stop();
      arrive(i);
    }
  };
  arrive = [&](int i) {  // on the models' strand
    if (launched == jobs) return;
    ++launched;
    timers_owed += mix.timers;
    posts_owed += mix.posts;
    const int t = static_cast<int>(timers_owed), p = static_cast<int>(posts_owed);
    timers_owed -= t;
    posts_owed -= p;
    step(i, t, p, true);
  };
  const auto work = asio::make_work_guard(io);
  asio::post(models, [&] {
    for (int i = 0; i < kSlots; ++i) arrive(i);
  });
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&] { io.run(); });
  for (std::thread& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(done.load()) / seconds;
}

std::int64_t floor_jobs() { return g_flags.smoke ? 5000 : 500000; }

void BM_AsioFloor(benchmark::State& state) {
  double rate = 0;
  for (auto _ : state) rate = asio_floor(2, floor_jobs(), JobMix{});
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * floor_jobs());
  state.counters["floor_jobs_per_s"] = rate;
}

// The fleet's cut of the reference scenario.
Scenario fleet() {
  const int arrivals_s = g_flags.smoke ? 3 : g_flags.fleet_seconds;
  const int settle_s = g_flags.smoke ? 60 : std::max(arrivals_s / 3, 5);  // ends once quiet
  return load_scenario_file(std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/bench-reference.json",
                            {"duration=" + std::to_string(arrivals_s) + "s",
                             "settle=" + std::to_string(settle_s) + "s", "events=[]"});
}

struct FleetRun {
  bool kept_up = false;
  bool kept_up_strict = false;
  double jobs_per_s = 0, timers_p99_real_ms = 0, handlers_p99_real_ms = 0, bodies_late_percent = 0,
         completed_percent = 0;
  JobMix mix;  // the run's own, per job completed
};

// The jobs the virtual engine completes in the cut: a paced run that keeps up completes
// as many (the full cut's 251,182 with seed 1, every one).
double virtual_completed(const Scenario& s) {
  return run_scenario(s, RunOptions{}).results["summary"]["jobs_completed"].get<double>();
}

FleetRun run_fleet(const Scenario& s, int engine, double scale, double expected) {
  RunOptions o;
  o.engine = engine == 0 ? Engine::kRealtime : Engine::kProcess;
  o.paced.time_scale = scale;
  o.process.worker_binary = DRAINSIM_WORKER;
  const Clock::time_point start = Clock::now();
  const RunOutput out = run_scenario(s, o);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const auto& summary = out.results["summary"];
  const auto& pacing = out.results["run"]["pacing"];
  FleetRun r;
  const auto completed = summary["jobs_completed"].get<double>();
  const auto enqueued = summary["jobs_enqueued"].get<double>();
  r.jobs_per_s = completed / wall;
  r.completed_percent = enqueued > 0 ? 100 * completed / enqueued : 100;
  r.timers_p99_real_ms = pacing["timers_late_p99_real_ms"].get<double>();
  r.handlers_p99_real_ms = pacing["handlers_late_p99_real_ms"].get<double>();
  r.bodies_late_percent = pacing["bodies_late_percent"].get<double>();
  if (completed > 0) {
    r.mix.timers = pacing["timers"].get<double>() / completed;
    r.mix.posts = pacing["handlers"].get<double>() / completed;
  }
  r.kept_up = completed >= expected && !pacing["behind"].get<bool>() && r.timers_p99_real_ms <= 1.0;
  r.kept_up_strict = r.kept_up && r.handlers_p99_real_ms <= 1.0;
  return r;
}

void BM_Fleet(benchmark::State& state) {
  const int engine = static_cast<int>(state.range(0));
  const auto scale = static_cast<double>(state.range(1));
  const Scenario s = fleet();
  const double expected = virtual_completed(s);
  FleetRun r;
  for (auto _ : state) r = run_fleet(s, engine, scale, expected);
  const double floor = asio_floor(2, floor_jobs(), r.mix);
  state.counters["jobs_per_s"] = r.jobs_per_s;
  state.counters["kept_up"] = r.kept_up ? 1 : 0;
  state.counters["kept_up_strict"] = r.kept_up_strict ? 1 : 0;
  state.counters["timers_late_p99_real_ms"] = r.timers_p99_real_ms;
  state.counters["handlers_late_p99_real_ms"] = r.handlers_p99_real_ms;
  state.counters["bodies_late_percent"] = r.bodies_late_percent;
  state.counters["completed_percent"] = r.completed_percent;
  state.counters["timers_per_job"] = r.mix.timers;
  state.counters["posts_per_job"] = r.mix.posts;
  state.counters["floor_jobs_per_s"] = floor;
  state.counters["ratio_to_floor"] = kArrivalsPerS * scale / floor;
}

void BM_FleetMaxScale(benchmark::State& state) {
  const int engine = static_cast<int>(state.range(0));
  const Scenario s = fleet();
  const double expected = virtual_completed(s);
  double good = 1, bad = engine == 0 ? 200 : 40;
  JobMix mix;
  for (auto _ : state) {
    // Geometric bisection: the scale that keeps up is known within bad / good.
    for (int step = 0; step < (g_flags.smoke ? 1 : 6); ++step) {
      const double mid = std::sqrt(good * bad);
      const FleetRun r = run_fleet(s, engine, mid, expected);
      mix = r.mix;
      (r.kept_up ? good : bad) = mid;
    }
  }
  const double floor = asio_floor(2, floor_jobs(), mix);
  state.counters["max_scale"] = good;
  state.counters["failed_scale"] = bad;
  state.counters["max_jobs_per_s"] = kArrivalsPerS * good;
  state.counters["floor_jobs_per_s"] = floor;
  state.counters["ratio_to_floor"] = kArrivalsPerS * good / floor;
}

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  g_flags = parse_flags(argc, argv);
  benchmark::RegisterBenchmark("BM_AsioFloor", BM_AsioFloor)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Fleet", BM_Fleet)
      ->ArgNames({"engine", "scale"})
      ->Args({0, 20})
      ->Args({1, 5})
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_FleetMaxScale", BM_FleetMaxScale)
      ->ArgName("engine")
      ->Arg(0)
      ->Arg(1)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  return run(argc, argv);
}
