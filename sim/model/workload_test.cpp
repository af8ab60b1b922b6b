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

TEST(Workload, EachArrivalDrawsItsClassByWeightAndTakesItsDurations) {
  // Two classes, weights 1 and 3, 2 s and 1 min jobs: of 4000 arrivals about a quarter
  // are of the first (4 sigma: 0.25 +- 0.027), each with its class's duration.
  VirtualRuntime rt(7);
  WorkloadConfig w = ten_per_second();
  DurationDistribution two_s, one_min;
  two_s.value = 2 * kSecond;
  one_min.value = kMinute;
  w.classes = {JobClass{"fail-fast", 1, two_s, 0, RetryPolicy{}},
               JobClass{"patient", 3, one_min, 0, RetryPolicy{}}};
  int counts[2] = {0, 0};
  Workload workload(rt, w, 400 * kSecond, [&](const JobSpec& spec) {
    ASSERT_LT(spec.job_class, 2);
    ++counts[spec.job_class];
    EXPECT_EQ(spec.work, spec.job_class == 0 ? 2 * kSecond : kMinute);
  });
  workload.start();
  rt.run_until(400 * kSecond);
  EXPECT_EQ(counts[0] + counts[1], 4000);
  EXPECT_NEAR(counts[0] / 4000.0, 0.25, 0.027);
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
