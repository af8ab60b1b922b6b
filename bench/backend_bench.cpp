// Backend (the in-process job store, OJS mechanisms: leases, heartbeats, dead-worker
// detection) with 10,000 leases live: 1,000 workers each holding 10 jobs, as in the
// reference scenario's 100 pods x 10 slots, ten times over. The Recorder is wired as in a
// run (timeline off) and told of each attempt as a worker process would, so its
// bookkeeping is part of the figure. Items per second are:
//   BM_FetchAck     cycles: the oldest lease's attempt ends, it is ACKed, a new job is
//                   enqueued and the same worker fetches it (enqueue + fetch + ack)
//   BM_Heartbeat    heartbeats: a worker reports its 10 active jobs, renewing their leases
//   BM_LeaseExpiry  expiries: the next lease timer fires (visibility timeout 1 s, no
//                   heartbeats), the job goes back to its queue and a worker fetches it
//                   again (the timer pop, the recovery and the fetch)
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "bench_main.h"
#include "engine/virtual_runtime.h"
#include "model/backend.h"
#include "model/recorder.h"

namespace drainsim::bench {
namespace {

constexpr int kWorkers = 1000;
constexpr int kSlots = 10;

struct NoListener final : WorkerListener {
  void on_jobs_available() override {}
};

// 1,000 workers holding 10 leases each.
struct Store {
  explicit Store(BackendConfig config = {})
      : rt(1), recorder(false), backend(rt, config, BackendMechanisms{}, recorder) {
    queue = backend.queue("default");
    const int queues[] = {queue};
    for (int w = 0; w < kWorkers; ++w) workers.push_back(backend.register_worker(queues, &none));
  }
  // Enqueues and fetches 10 jobs for each worker, `step` apart in time per worker.
  void fill(Duration step = 0) {
    std::vector<Lease> got;
    for (WorkerId w : workers) {
      for (int i = 0; i < kSlots; ++i) backend.enqueue(queue, JobSpec{kSecond, 0, true});
      got.clear();
      backend.fetch(w, kSlots, got);
      for (const Lease& l : got) {
        recorder.attempt_started(l, rt.now());
        held.emplace_back(w, l);
      }
      if (step > 0) rt.run_until(rt.now() + step);
    }
  }

  VirtualRuntime rt;
  Recorder recorder;
  Backend backend;
  NoListener none;
  int queue = 0;
  std::vector<WorkerId> workers;
  std::deque<std::pair<WorkerId, Lease>> held;  // oldest first
};

void BM_FetchAck(benchmark::State& state) {
  Store s;
  s.fill();
  std::vector<Lease> got;
  for (auto _ : state) {
    const auto [worker, lease] = s.held.front();
    s.held.pop_front();
    AttemptRecord record;
    record.job = lease.id;
    record.attempt = lease.attempt;
    record.worker = worker;
    record.start = record.end = s.rt.now();
    s.recorder.attempt_ended(lease, record, 0);
    if (!s.backend.ack(worker, lease)) state.SkipWithError("ack rejected");
    s.backend.enqueue(s.queue, JobSpec{kSecond, 0, true});
    got.clear();
    s.backend.fetch(worker, 1, got);
    s.recorder.attempt_started(got.front(), s.rt.now());
    s.held.emplace_back(worker, got.front());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["live_leases"] = static_cast<double>(s.held.size());
}

void BM_Heartbeat(benchmark::State& state) {
  Store s;
  s.fill();
  std::vector<std::vector<Lease>> active(kWorkers);
  for (const auto& [worker, lease] : s.held) active[worker].push_back(lease);
  std::size_t w = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.backend.heartbeat(s.workers[w], Directive::kRunning, active[w]));
    if (++w == active.size()) w = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["leases_per_heartbeat"] = kSlots;
}

void BM_LeaseExpiry(benchmark::State& state) {
  BackendConfig config;
  config.visibility_timeout = kSecond;
  config.heartbeat_timeout = 1000000 * kHour;  // no dead-worker detection in the way
  config.retry.max_attempts = 1 << 30;         // expiries never use up a job's attempts
  Store s(config);
  s.fill(kSecond / kWorkers);  // lease deadlines spread over a second
  std::vector<Lease> got;
  std::size_t w = 0;
  for (auto _ : state) {
    if (!s.rt.step()) state.SkipWithError("no lease timer");
    got.clear();
    s.backend.fetch(s.workers[w], 1, got);
    if (got.empty()) state.SkipWithError("the expired job was not requeued");
    if (++w == s.workers.size()) w = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["live_leases"] = static_cast<double>(s.backend.unfinished());
}

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  parse_flags(argc, argv);  // --smoke changes nothing here: the sizes are the point
  benchmark::RegisterBenchmark("BM_FetchAck", BM_FetchAck);
  benchmark::RegisterBenchmark("BM_Heartbeat", BM_Heartbeat);
  benchmark::RegisterBenchmark("BM_LeaseExpiry", BM_LeaseExpiry);
  return run(argc, argv);
}
