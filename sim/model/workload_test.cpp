// Workload: arrivals fall in [0, duration), even when the arrival timer fires late (as
// it does on the real-time engine).
#include "model/workload.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "engine/asio_runtime.h"
#include "engine/virtual_runtime.h"

namespace drainsim {
namespace {

WorkloadConfig ten_per_second() {
  WorkloadConfig w;
  w.arrival.kind = ArrivalProcess::Kind::kConstant;
  w.arrival.rate_per_s = 10;
  w.job_duration.kind = DurationDistribution::Kind::kConstant;
  w.job_duration.value = kSecond;
  return w;
}

TEST(Workload, ConstantArrivalsFillTheHalfOpenWindow) {
  VirtualRuntime rt(1);
  Recorder recorder(false);
  Backend backend(rt, BackendConfig{}, BackendMechanisms{}, recorder);
  const WorkloadConfig w = ten_per_second();
  Workload workload(rt, w, kSecond,
                    enqueue_into(backend, w.queue));  // arrivals at 0, 0.1, ..., 0.9 s
  workload.start();
  rt.run_until(10 * kSecond);
  EXPECT_TRUE(workload.done());
  EXPECT_EQ(recorder.totals().enqueued, 10);
}

TEST(Workload, ALateArrivalTimerEnqueuesNothingPastTheDuration) {
  // Scale 1000: 1 simulated s = 1 ms. The strand is blocked for 5 ms (5 simulated s)
  // before the first arrival can fire, so every arrival timer fires late; still only the
  // ten arrivals before 1 s are enqueued.
  AsioRuntime asio(1, 1000, 1);
  auto rt = asio.strand();
  Recorder recorder(false);
  Backend backend(*rt, BackendConfig{}, BackendMechanisms{}, recorder);
  const WorkloadConfig w = ten_per_second();
  Workload workload(*rt, w, kSecond, enqueue_into(backend, w.queue));
  std::promise<void> done;
  asio.start();
  rt->post([&] {
    workload.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  rt->post([&] {});  // queued behind the sleep
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  rt->post([&] { done.set_value(); });
  done.get_future().wait();
  asio.stop();
  EXPECT_TRUE(workload.done());
  EXPECT_EQ(recorder.totals().enqueued, 10);
}

}  // namespace
}  // namespace drainsim
