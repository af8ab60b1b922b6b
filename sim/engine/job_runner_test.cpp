// JobRunner: bodies as timers (exact) and as real threads (never early; cancellation and
// abort honoured). Real-thread cases run at time scale 1000: 1 simulated s = 1 ms.
#include "engine/job_runner.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <vector>

#include "engine/asio_runtime.h"
#include "engine/virtual_runtime.h"

namespace drainsim {
namespace {

struct Ends final : TimerTarget {
  void on_timer(std::uint32_t tag, std::uint64_t arg) override {
    std::lock_guard lock(mu);
    seen.push_back({tag, arg, rt->now()});
    if (seen.size() == expected) done.set_value();
  }
  struct End {
    std::uint32_t tag;
    std::uint64_t arg;
    Time at;
  };
  Runtime* rt = nullptr;
  std::mutex mu;
  std::vector<End> seen;
  std::size_t expected = 0;
  std::promise<void> done;
};

TEST(TimerRunner, EndsExactlyOrAtTheCancelLatencyWhicheverIsFirst) {
  VirtualRuntime rt(1);
  Ends ends;
  ends.rt = &rt;
  auto runner = make_job_runner(JobBody::kTimer, rt, &ends, 3);
  runner->start(0, 7, 20 * kSecond);
  runner->start(1, 8, 20 * kSecond);
  runner->start(2, 9, 20 * kSecond);
  rt.run_until(5 * kSecond);
  runner->cancel(0, 2 * kSecond);   // stops at 7 s
  runner->cancel(1, 30 * kSecond);  // would stop at 35 s: ends by itself at 20 s
  runner->abort(2);                 // never heard of again
  rt.run_until(kMinute);
  ASSERT_EQ(ends.seen.size(), 2u);
  EXPECT_EQ(ends.seen[0].tag, JobRunner::kBodyCancelled);
  EXPECT_EQ(ends.seen[0].arg, JobRunner::body_arg(0, 7));
  EXPECT_EQ(ends.seen[0].at, 7 * kSecond);
  EXPECT_EQ(ends.seen[1].tag, JobRunner::kBodyEnded);
  EXPECT_EQ(ends.seen[1].arg, JobRunner::body_arg(1, 8));
  EXPECT_EQ(ends.seen[1].at, 20 * kSecond);
}

void real_bodies(JobBody kind) {
  AsioRuntime asio(1, 1000, 2);
  auto rt = asio.strand();
  Ends ends;
  ends.rt = rt.get();
  ends.expected = 2;
  asio.start();
  {
    auto runner = make_job_runner(kind, *rt, &ends, 3);
    const auto started = std::chrono::steady_clock::now();
    runner->start(0, 1, 10 * kSecond);   // ends by itself at 10 s (10 ms)
    runner->start(1, 2, 500 * kSecond);  // cancelled at once: stops at 5 s
    // Aborted: no end. Its 300 ms leave the abort time to land even while the spinning
    // bodies hold both cores (CI's TSan run once saw a 20 ms body end before its abort).
    runner->start(2, 3, 300 * kSecond);
    runner->cancel(1, 5 * kSecond);
    runner->abort(2);
    ASSERT_EQ(ends.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    // Room for a wrong third: past the aborted body's own end.
    std::this_thread::sleep_until(started + std::chrono::milliseconds(350));
  }  // the runner joins its threads
  asio.stop();
  ASSERT_EQ(ends.seen.size(), 2u);
  for (const auto& e : ends.seen) {
    if (e.arg == JobRunner::body_arg(0, 1)) {
      EXPECT_EQ(e.tag, JobRunner::kBodyEnded);
      EXPECT_GE(e.at, 10 * kSecond);  // never early
    } else {
      EXPECT_EQ(e.arg, JobRunner::body_arg(1, 2));
      EXPECT_EQ(e.tag, JobRunner::kBodyCancelled);
      EXPECT_GE(e.at, 5 * kSecond);
    }
  }
}

TEST(ThreadRunner, SleepingBodiesEndCancelAndAbort) { real_bodies(JobBody::kSleep); }
TEST(ThreadRunner, SpinningBodiesEndCancelAndAbort) { real_bodies(JobBody::kSpin); }

}  // namespace
}  // namespace drainsim
