// AsioRuntime: scaled real-time timers, cancellation, and one strand's callbacks never
// overlapping while the pool has several threads. No timing bounds beyond "never early"
// (speed and lateness are measured in bench/, not asserted here).
#include "engine/asio_runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <future>
#include <vector>

namespace drainsim {
namespace {

struct Recording final : TimerTarget {
  void on_timer(std::uint32_t tag, std::uint64_t arg) override {
    fired.push_back({tag, rt->now(), arg});
    if (fired.size() == expected) done.set_value();
  }
  struct Fire {
    std::uint32_t tag;
    Time at;
    std::uint64_t arg;
  };
  Runtime* rt = nullptr;
  std::vector<Fire> fired;
  std::size_t expected = 0;
  std::promise<void> done;
};

TEST(AsioRuntime, TimersFireInTimeOrderNeverEarlyAndCancelledOnesNever) {
  AsioRuntime asio(1, /*time_scale=*/1000, /*threads=*/2);  // 1 simulated s = 1 ms
  auto rt = asio.strand();
  Recording r;
  r.rt = rt.get();
  r.expected = 3;
  asio.start();
  std::promise<void> scheduled;
  rt->post([&] {
    rt->schedule(30 * kSecond, Priority::kTimer, &r, 3, 30);
    TimerId doomed = rt->schedule(20 * kSecond, Priority::kTimer, &r, 99);
    rt->schedule(10 * kSecond, Priority::kTimer, &r, 1, 10);
    rt->schedule(25 * kSecond, Priority::kTimer, &r, 2, 25);
    rt->cancel(doomed);
    EXPECT_FALSE(doomed.pending());
    scheduled.set_value();
  });
  scheduled.get_future().wait();
  r.done.get_future().wait();
  asio.stop();
  ASSERT_EQ(r.fired.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.fired[i].tag, i + 1);
    EXPECT_GE(r.fired[i].at, static_cast<Time>(r.fired[i].arg) * kSecond);  // never early
  }
}

TEST(AsioRuntime, TimersOverdueTogetherStillFireInTimeOrder) {
  // The strand is busy for 60 ms, then schedules 200 timers due at 1..50 ms (1 simulated
  // s = 1 ms): all overdue at once. asio hands their completions to the pool's four
  // threads, which may enter the strand in any order (CI saw 3, 1, 2 from the test above
  // on a starved machine); they must still fire in time order, as on time.
  AsioRuntime asio(1, /*time_scale=*/1000, /*threads=*/4);
  auto rt = asio.strand();
  Recording r;
  r.rt = rt.get();
  r.expected = 200;
  asio.start();
  rt->post([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    for (std::uint32_t i = 200; i >= 1; --i) {
      rt->schedule(i * 250 * kMillisecond, Priority::kTimer, &r, i, i);
    }
  });
  r.done.get_future().wait();
  asio.stop();
  ASSERT_EQ(r.fired.size(), 200u);
  int out_of_order = 0;
  for (std::size_t i = 0; i < r.fired.size(); ++i) out_of_order += r.fired[i].tag != i + 1;
  EXPECT_EQ(out_of_order, 0);
}

TEST(AsioRuntime, TimersOverdueTogetherFireInTheVirtualEnginesOrder) {
  // The strand is busy for 60 ms (60 simulated s), then schedules, at 10 s and at 20 s, one
  // timer of each priority in reverse order, plus a second backend timer at 10 s: all
  // overdue at once. They fire as the virtual engine runs them, by (time, priority,
  // schedule order): 10 s scripted, completion, timer, backend, backend (the one scheduled
  // first), then 20 s in priority order. The strand reports how far behind it fell: at
  // least the 40 s the 20 s timers waited, every timer later than a 1 s tolerance.
  AsioRuntime asio(1, /*time_scale=*/1000, /*threads=*/2);
  auto rt = asio.strand();
  rt->set_tolerance(kSecond);
  Recording r;
  r.rt = rt.get();
  r.expected = 9;
  asio.start();
  rt->post([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    const Priority order[] = {Priority::kBackend, Priority::kTimer, Priority::kCompletion,
                              Priority::kScripted};
    std::uint32_t tag = 0;
    for (const Time at : {20 * kSecond, 10 * kSecond}) {
      for (const Priority p : order) rt->schedule(at, p, &r, tag++, static_cast<std::uint64_t>(p));
    }
    rt->schedule(10 * kSecond, Priority::kBackend, &r, tag++, 3);
  });
  r.done.get_future().wait();
  asio.stop();
  ASSERT_EQ(r.fired.size(), 9u);
  const std::uint32_t expected[] = {7, 6, 5, 4, 8, 3, 2, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(r.fired[i].tag, expected[i]) << i;
  const StrandRuntime::Behind behind = rt->behind();
  EXPECT_GE(behind.most, 40 * kSecond);
  EXPECT_EQ(behind.beyond_tolerance, 9u);
}

// Many timers due at once on one strand, two pool threads: callbacks must not overlap.
struct Overlap final : TimerTarget {
  void on_timer(std::uint32_t, std::uint64_t) override {
    if (inside) overlapped = true;
    inside = true;
    for (unsigned i = 0; i < 2000; ++i) sink = sink + i;  // some work inside the callback
    ++count;  // plain int: ThreadSanitizer reports a race if two callbacks overlap
    inside = false;
    if (count == total) done.set_value();
  }
  volatile unsigned sink = 0;  // unsigned: the sum wraps (as int it overflowed: UBSan)
  bool inside = false;
  bool overlapped = false;
  int count = 0;
  int total = 0;
  std::promise<void> done;
};

// lag() keeps the timers' lateness and the handlers' apart (results run.pacing, issue 39's
// "timer lateness p99"): at time scale 1, one thread, a posted function that holds the
// strand 200 ms makes the function posted right after it wait that long; a timer due
// 300 ms later, on an idle strand, fires within a fraction of that. "Never early" aside,
// the only bound is the 200 ms the second function must have waited.
TEST(AsioRuntime, LagKeepsTimersAndHandlersApart) {
  AsioRuntime asio(1, /*time_scale=*/1, /*threads=*/1);
  auto rt = asio.strand();
  Recording r;
  r.rt = rt.get();
  r.expected = 1;
  asio.start();
  rt->post([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
  rt->post([&] { rt->schedule(rt->now() + 300 * kMillisecond, Priority::kTimer, &r, 1); });
  r.done.get_future().wait();
  asio.stop();
  const StrandRuntime::Lag lag = rt->lag();
  ASSERT_EQ(lag.handlers_queued.count(), 2u);
  ASSERT_EQ(lag.timers_queued.count(), 1u);
  EXPECT_GE(lag.handlers_queued.max(), 0.2);  // the second waited for the first
  EXPECT_LT(lag.timers_queued.max(), lag.handlers_queued.max());
  const Percentiles both = lag.queued();
  EXPECT_EQ(both.count(), 3u);
  EXPECT_EQ(both.max(), lag.handlers_queued.max());
  EXPECT_EQ(both.min(), std::min(lag.timers_queued.min(), lag.handlers_queued.min()));
}

TEST(AsioRuntime, OneStrandsCallbacksNeverOverlap) {
  AsioRuntime asio(1, 1000, 2);
  auto rt = asio.strand();
  Overlap o;
  o.total = 2000;
  asio.start();
  rt->post([&] {
    for (int i = 0; i < o.total; ++i) rt->schedule(5 * kSecond, Priority::kTimer, &o, 0);
  });
  o.done.get_future().wait();
  asio.stop();
  EXPECT_FALSE(o.overlapped);
  EXPECT_EQ(o.count, 2000);
  EXPECT_EQ(rt->events_run(), 2000u);
}

TEST(AsioRuntime, HaltedStrandFiresNothingMore) {
  AsioRuntime asio(1, 1000, 1);
  auto rt = asio.strand();
  Recording r;
  r.rt = rt.get();
  r.expected = 1;
  asio.start();
  rt->post([&] {
    rt->schedule(1 * kSecond, Priority::kTimer, &r, 1);
    rt->schedule(40 * kSecond, Priority::kTimer, &r, 2);
  });
  r.done.get_future().wait();
  rt->halt();
  std::this_thread::sleep_for(std::chrono::milliseconds(80));  // 80 simulated seconds
  asio.stop();
  EXPECT_EQ(r.fired.size(), 1u);
}

TEST(AsioRuntime, FirstStrandDrawsTheVirtualEnginesStreams) {
  AsioRuntime asio(42, 1000, 1);
  auto first = asio.strand();
  auto second = asio.strand();
  const Rng root(42);
  Rng expected = root.fork(static_cast<std::uint64_t>(Stream::kDurations));
  EXPECT_EQ(first->rng(Stream::kDurations).next(), expected.next());
  Rng other = root.fork(static_cast<std::uint64_t>(Stream::kDurations));
  EXPECT_NE(second->rng(Stream::kDurations).next(), other.next());
}

}  // namespace
}  // namespace drainsim
