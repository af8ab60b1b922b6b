// Real-time engine (AsioRuntime: Boost.Asio timers on a pool of 2 threads, one strand per
// actor), with real threads and the wall clock.
//   BM_TimerLateness  100 workers, each a strand with two periodic timers, its heartbeat
//       and its poll, every 1 ms of real time (1 s simulated at time-scale 1000), phases
//       spread over the first period; each timer is re-armed at its previous deadline +
//       1 ms (a fixed rate), so 200,000 timers a second for 1 s (--smoke: 50 ms). The
//       counters are the lateness (wall clock at the callback - the deadline) over every
//       timer fired, in µs: lateness_p50_us, lateness_p99_us, lateness_max_us.
//   BM_FetchAck/threads:N  N real threads, each one worker, share one Backend under one
//       lock, as worker strands reach the models under --model-access lock: a cycle is
//       (lock; fetch 1; unlock) then (lock; the attempt ends; ack; enqueue a new job;
//       unlock). 10,000 jobs wait in the queue. items_per_second = cycles per wall second,
//       all threads together.
//   BM_RealtimeStress  scenarios/realtime-stress.json (20 pods x 10 slots, 2,000 jobs/s of
//       50 ms, 30 s) on the real-time engine at --time-scale 100 with real sleeping job
//       bodies: items_per_second = jobs per wall second (the scenario asks for 200,000);
//       job_latency_p99_s (simulated) shows whether the engine kept up (50 ms is no wait).
//       --smoke: 2 s simulated.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_main.h"
#include "engine/asio_runtime.h"
#include "engine/virtual_runtime.h"
#include "io/scenario_reader.h"
#include "model/backend.h"
#include "model/recorder.h"
#include "run/run_scenario.h"

namespace drainsim::bench {
namespace {

bool g_smoke = false;

// A worker's heartbeat (tag 0) and poll (tag 1) timers, re-armed every `period`.
class Ticker final : public TimerTarget {
 public:
  Ticker(StrandRuntime& rt, Duration period, Time until)
      : rt_(rt), period_(period), until_(until) {}
  void arm(std::uint32_t tag, Time at) { rt_.schedule(at, Priority::kTimer, this, tag, at); }
  void on_timer(std::uint32_t tag, std::uint64_t arg) override {
    const Time next = static_cast<Time>(arg) + period_;
    if (next < until_) arm(tag, next);
  }

 private:
  StrandRuntime& rt_;
  Duration period_;
  Time until_;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void BM_TimerLateness(benchmark::State& state) {
  constexpr int kWorkers = 100;
  constexpr double kScale = 1000;  // 1 simulated second = 1 ms
  const Duration period = kSecond;
  const Duration run_for = (g_smoke ? 50 : 1000) * kSecond;
  std::vector<double> lateness;
  for (auto _ : state) {
    AsioRuntime asio(1, kScale, 2);
    std::vector<std::unique_ptr<StrandRuntime>> strands;
    std::vector<std::unique_ptr<Ticker>> tickers;
    for (int i = 0; i < kWorkers; ++i) {
      strands.push_back(asio.strand());
      strands.back()->record_lateness(true);
    }
    asio.start();
    const Time base = asio.now() + 10 * kSecond;  // 10 ms to set up
    Rng rng(7);
    for (int i = 0; i < kWorkers; ++i) {
      tickers.push_back(std::make_unique<Ticker>(*strands[i], period, base + run_for));
      tickers.back()->arm(0, base + static_cast<Time>(rng.uniform() * period));
      tickers.back()->arm(1, base + static_cast<Time>(rng.uniform() * period));
    }
    std::this_thread::sleep_until(asio.real_time(base + run_for + 20 * kSecond));
    asio.stop();
    for (auto& s : strands) {
      const std::vector<double> l = s->take_lateness();
      lateness.insert(lateness.end(), l.begin(), l.end());
    }
  }
  state.counters["timers"] = static_cast<double>(lateness.size());
  state.counters["lateness_max_us"] =
      lateness.empty() ? 0 : *std::max_element(lateness.begin(), lateness.end());
  state.counters["lateness_p99_us"] = percentile(lateness, 0.99);
  state.counters["lateness_p50_us"] = percentile(lateness, 0.50);
}

struct NoListener final : WorkerListener {
  void on_jobs_available() override {}
};

// Shared by the threads of BM_FetchAck; made and dropped by thread 0.
struct Shared {
  Shared() : rt(1), recorder(false), backend(rt, BackendConfig{}, BackendMechanisms{}, recorder) {
    queue = backend.queue("default");
    for (int i = 0; i < 10000; ++i) backend.enqueue(queue, JobSpec{kSecond, 0, true});
  }
  std::mutex models;
  VirtualRuntime rt;  // time stands still: the backend's timers only need a clock
  Recorder recorder;
  Backend backend;
  NoListener none;
  int queue = 0;
};
std::unique_ptr<Shared> g_shared;

void BM_FetchAck(benchmark::State& state) {
  if (state.thread_index() == 0) g_shared = std::make_unique<Shared>();
  WorkerId worker = kNoWorker;
  std::vector<Lease> got;
  for (auto _ : state) {
    Shared& s = *g_shared;
    if (worker == kNoWorker) {
      const std::lock_guard held(s.models);
      const int queues[] = {s.queue};
      worker = s.backend.register_worker(queues, &s.none);
    }
    {
      const std::lock_guard held(s.models);
      got.clear();
      s.backend.fetch(worker, 1, got);
      if (!got.empty()) s.recorder.attempt_started(got.front(), s.rt.now());
    }
    if (got.empty()) {
      state.SkipWithError("the queue ran dry");
      break;
    }
    {
      const std::lock_guard held(s.models);
      AttemptRecord record;
      record.job = got.front().id;
      record.attempt = got.front().attempt;
      record.worker = worker;
      s.recorder.attempt_ended(got.front(), record, 0);
      s.backend.ack(worker, got.front());
      s.backend.enqueue(s.queue, JobSpec{kSecond, 0, true});
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  if (state.thread_index() == 0) g_shared.reset();
}

void BM_RealtimeStress(benchmark::State& state) {
  std::vector<std::string> overrides;
  if (g_smoke) overrides.push_back("duration=2s");
  const Scenario s = load_scenario_file(
      std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/realtime-stress.json", overrides);
  RunOptions options;
  options.engine = Engine::kRealtime;
  options.paced.time_scale = 100;
  std::int64_t jobs = 0;
  double p99 = 0;
  for (auto _ : state) {
    const RunOutput out = run_scenario(s, options);
    const auto& summary = out.results["summary"];
    jobs += summary["jobs_completed"].get<std::int64_t>();
    const auto& latency = summary["job_latency_s"]["p99"];
    p99 = std::max(p99, latency.is_number() ? latency.get<double>() : 0.0);
  }
  state.SetItemsProcessed(jobs);
  state.counters["job_latency_p99_s"] = p99;
}

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  g_smoke = parse_flags(argc, argv).smoke;
  benchmark::RegisterBenchmark("BM_TimerLateness", BM_TimerLateness)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_FetchAck", BM_FetchAck)->Threads(1)->Threads(2)->UseRealTime();
  benchmark::RegisterBenchmark("BM_RealtimeStress", BM_RealtimeStress)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  return run(argc, argv);
}
