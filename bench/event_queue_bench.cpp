// Event queue (VirtualRuntime's calendar queue), the ns-3 bench-scheduler way: the
// queue is filled with N pending events at exponential delays (mean 1 s), then every
// event that fires schedules one more at now + an exponential delay (the "hold" model),
// so N events stay pending. Items are events run (one pop and one push each); Google
// Benchmark reports them per second. The delays are drawn before timing (a table of 2^20),
// so the figure is the queue's, not the generator's.
//   BM_Hold/N        pop + push per event
//   BM_HoldCancel/N  as Hold, and each event also cancels a random pending timer and
//                    schedules its replacement (the simulator cancels a lease timer at
//                    every ack): pop + 2 pushes + 1 cancel per event
// The simulator's equal-time classes are mixed in (priority = event index mod 4).
#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "bench_main.h"
#include "engine/virtual_runtime.h"

namespace drainsim::bench {
namespace {

constexpr std::size_t kDelayTableSize = std::size_t{1} << 20;

std::vector<Duration> exponential_delays() {
  Rng rng(42);
  std::vector<Duration> delays(kDelayTableSize);
  for (Duration& d : delays) d = static_cast<Duration>(rng.exponential(kSecond));
  return delays;
}

class Hold final : public TimerTarget {
 public:
  Hold(VirtualRuntime& rt, std::size_t pending, bool cancel)
      : rt_(rt), delays_(exponential_delays()), ids_(pending), cancel_(cancel) {
    for (std::size_t i = 0; i < pending; ++i) arm(i);
  }
  void on_timer(std::uint32_t /*tag*/, std::uint64_t arg) override {
    arm(arg);
    if (cancel_) {
      const std::size_t victim = delays_[next_ & (kDelayTableSize - 1)] % ids_.size();
      if (victim != arg) {
        rt_.cancel(ids_[victim]);
        arm(victim);
      }
    }
  }

 private:
  void arm(std::size_t i) {
    const Duration delay = delays_[next_++ & (kDelayTableSize - 1)];
    ids_[i] = rt_.schedule(rt_.now() + delay, static_cast<Priority>(i & 3), this, 0, i);
  }

  VirtualRuntime& rt_;
  std::vector<Duration> delays_;
  std::vector<TimerId> ids_;
  std::size_t next_ = 0;
  bool cancel_;
};

void hold(benchmark::State& state, bool cancel) {
  VirtualRuntime rt(1);
  Hold model(rt, static_cast<std::size_t>(state.range(0)), cancel);
  for (auto _ : state) {
    if (!rt.step()) state.SkipWithError("the queue ran dry");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["pending"] = static_cast<double>(rt.pending());
}

void BM_Hold(benchmark::State& state) { hold(state, false); }
void BM_HoldCancel(benchmark::State& state) { hold(state, true); }

}  // namespace
}  // namespace drainsim::bench

int main(int argc, char** argv) {
  using namespace drainsim::bench;
  const Flags flags = parse_flags(argc, argv);
  for (auto* b : {benchmark::RegisterBenchmark("BM_Hold", BM_Hold),
                  benchmark::RegisterBenchmark("BM_HoldCancel", BM_HoldCancel)}) {
    b->ArgName("pending")->Arg(100000);
    if (!flags.smoke) b->Arg(1000)->Arg(1000000);
  }
  return run(argc, argv);
}
