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

// One slot's thread runs body after body: an aborted body says nothing, not even to the
// next body in its slot, and each body ends after its own run time.
std::size_t seen_count(Ends& ends) {
  std::lock_guard lock(ends.mu);
  return ends.seen.size();
}

void one_slot_in_turn(JobBody kind) {
  AsioRuntime asio(1, 1000, 2);
  auto rt = asio.strand();
  Ends ends;
  ends.rt = rt.get();
  ends.expected = 3;
  asio.start();
  {
    auto runner = make_job_runner(kind, *rt, &ends, 1);
    runner->start(0, 1, 300 * kSecond);  // aborted at once
    runner->abort(0);
    Time asked = rt->now();
    runner->start(0, 2, 10 * kSecond);  // ends by itself 10 s (10 ms) on
    for (int i = 0; i < 10000 && seen_count(ends) < 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(seen_count(ends), 1u);
    const Time second = asked + 10 * kSecond;
    asked = rt->now();
    runner->start(0, 3, 20 * kSecond);  // 20 s on, cancelled to stop 4 s on
    runner->cancel(0, 4 * kSecond);
    for (int i = 0; i < 10000 && seen_count(ends) < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // Room for a wrong third: past the aborted body's own end.
    std::this_thread::sleep_for(std::chrono::milliseconds(320));
    std::lock_guard lock(ends.mu);
    ASSERT_EQ(ends.seen.size(), 2u);
    EXPECT_EQ(ends.seen[0].tag, JobRunner::kBodyEnded);
    EXPECT_EQ(ends.seen[0].arg, JobRunner::body_arg(0, 2));
    EXPECT_GE(ends.seen[0].at, second);
    EXPECT_EQ(ends.seen[1].tag, JobRunner::kBodyCancelled);
    EXPECT_EQ(ends.seen[1].arg, JobRunner::body_arg(0, 3));
    EXPECT_GE(ends.seen[1].at, asked + 4 * kSecond);
  }
  asio.stop();
}

TEST(ThreadRunner, ASlotsSleepingBodiesRunInTurn) { one_slot_in_turn(JobBody::kSleep); }
TEST(ThreadRunner, ASlotsSpinningBodiesRunInTurn) { one_slot_in_turn(JobBody::kSpin); }

TEST(ThreadRunner, SleepingBodiesEndCancelAndAbort) { real_bodies(JobBody::kSleep); }
TEST(ThreadRunner, SpinningBodiesEndCancelAndAbort) { real_bodies(JobBody::kSpin); }

}  // namespace
}  // namespace drainsim
