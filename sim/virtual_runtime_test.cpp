#include "virtual_runtime.h"

#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

// Records every timer it receives, with the time it fired; an optional hook runs inside
// the callback.
struct Log final : TimerTarget {
  explicit Log(VirtualRuntime& runtime) : rt(runtime) {}
  void on_timer(std::uint32_t tag, std::uint64_t arg) override {
    fired.push_back(tag);
    times.push_back(rt.now());
    args.push_back(arg);
    if (hook) hook(tag);
  }
  VirtualRuntime& rt;
  std::vector<std::uint32_t> fired;
  std::vector<Time> times;
  std::vector<std::uint64_t> args;
  std::function<void(std::uint32_t)> hook;
};

TEST(VirtualRuntime, FiresInTimePriorityAndSchedulingOrder) {
  VirtualRuntime rt(1);
  Log log(rt);
  // Scheduled deliberately out of order. At t = 10: backend(1), timer(2), completion(3),
  // scripted(4), timer(5), scripted(6). Expected at t = 10: scripted 4, 6 (in scheduling
  // order), completion 3, timer 2, 5, backend 1. Tag 7 at t = 5 comes first, 8 at t = 20 last.
  rt.schedule(10, Priority::kBackend, &log, 1);
  rt.schedule(10, Priority::kTimer, &log, 2);
  rt.schedule(10, Priority::kCompletion, &log, 3);
  rt.schedule(20, Priority::kScripted, &log, 8);
  rt.schedule(10, Priority::kScripted, &log, 4);
  rt.schedule(10, Priority::kTimer, &log, 5);
  rt.schedule(5, Priority::kBackend, &log, 7, 77);
  rt.schedule(10, Priority::kScripted, &log, 6);
  EXPECT_EQ(rt.pending(), 8u);
  EXPECT_EQ(rt.next_time(), 5);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{7, 4, 6, 3, 2, 5, 1, 8}));
  EXPECT_EQ(log.times, (std::vector<Time>{5, 10, 10, 10, 10, 10, 10, 20}));
  EXPECT_EQ(log.args[0], 77u);  // the arg travels with the timer
  EXPECT_EQ(rt.now(), 20);      // kNever does not move the clock past the last timer
  EXPECT_EQ(rt.pending(), 0u);
  EXPECT_EQ(rt.events_run(), 8u);
  EXPECT_EQ(rt.next_time(), kNever);
}

TEST(VirtualRuntime, PriorityBeatsSchedulingOrderAtEqualTimes) {
  // All four classes, scheduled in reverse priority order, twice over, at one instant.
  VirtualRuntime rt(1);
  Log log(rt);
  for (std::uint32_t round = 0; round < 2; ++round) {
    for (int p = 3; p >= 0; --p) {
      rt.schedule(100, static_cast<Priority>(p), &log, round * 10 + static_cast<std::uint32_t>(p));
    }
  }
  rt.run_until(100);
  // Scripted (0, 10), completion (1, 11), timer (2, 12), backend (3, 13).
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{0, 10, 1, 11, 2, 12, 3, 13}));
}

TEST(VirtualRuntime, CancelRemovesAPendingTimer) {
  VirtualRuntime rt(1);
  Log log(rt);
  rt.schedule(1, Priority::kTimer, &log, 1);
  TimerId b = rt.schedule(2, Priority::kTimer, &log, 2);
  rt.schedule(3, Priority::kTimer, &log, 3);
  ASSERT_TRUE(b.pending());
  rt.cancel(b);
  EXPECT_FALSE(b.pending());  // the handle is reset
  EXPECT_EQ(rt.pending(), 2u);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(rt.events_run(), 2u);
}

TEST(VirtualRuntime, CancellingTheEarliestTimerMovesNextTime) {
  VirtualRuntime rt(1);
  Log log(rt);
  TimerId a = rt.schedule(5, Priority::kTimer, &log, 1);
  rt.schedule(9, Priority::kTimer, &log, 2);
  EXPECT_EQ(rt.next_time(), 5);
  rt.cancel(a);
  EXPECT_EQ(rt.next_time(), 9);
}

TEST(VirtualRuntime, CancellingAFiredHandleDoesNotCancelTheSlotsNextTimer) {
  VirtualRuntime rt(1);
  Log log(rt);
  const TimerId first = rt.schedule(1, Priority::kTimer, &log, 1);
  rt.run_until(1);
  ASSERT_EQ(log.fired, (std::vector<std::uint32_t>{1}));
  TimerId second = rt.schedule(5, Priority::kTimer, &log, 2);
  // The point of the test: the new timer reuses the fired timer's slot.
  ASSERT_EQ(second.slot, first.slot);
  TimerId stale = first;
  rt.cancel(stale);  // a no-op: the generation no longer matches
  EXPECT_FALSE(stale.pending());
  EXPECT_EQ(rt.pending(), 1u);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 2}));
  // And cancelling the second after it fired is a no-op too.
  rt.cancel(second);
  EXPECT_EQ(rt.pending(), 0u);
}

TEST(VirtualRuntime, CancellingTwiceDoesNotCancelTheSlotsNextTimer) {
  VirtualRuntime rt(1);
  Log log(rt);
  TimerId a = rt.schedule(3, Priority::kTimer, &log, 1);
  TimerId copy = a;
  rt.cancel(a);
  const TimerId b = rt.schedule(4, Priority::kTimer, &log, 2);
  ASSERT_EQ(b.slot, copy.slot);
  rt.cancel(copy);  // already cancelled: must not touch b
  rt.cancel(a);     // a reset handle: no-op
  TimerId none;
  rt.cancel(none);  // a default handle: no-op
  EXPECT_EQ(rt.pending(), 1u);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{2}));
}

TEST(VirtualRuntime, TimerScheduledInACallbackAtNowFiresInTheSameRun) {
  VirtualRuntime rt(1);
  Log log(rt);
  log.hook = [&](std::uint32_t tag) {
    // Tag 1 (t = 7) schedules tag 2 at now(); tag 2 schedules tag 3 at now() + 1.
    if (tag == 1) rt.schedule(rt.now(), Priority::kTimer, &log, 2);
    if (tag == 2) rt.schedule(rt.now() + 1, Priority::kTimer, &log, 3);
  };
  rt.schedule(7, Priority::kTimer, &log, 1);
  rt.run_until(7);
  // 3 is due at 8, after `until`.
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(log.times, (std::vector<Time>{7, 7}));
  EXPECT_EQ(rt.now(), 7);
  EXPECT_EQ(rt.pending(), 1u);
  rt.run_until(8);
  EXPECT_EQ(log.fired.back(), 3u);
}

TEST(VirtualRuntime, TimerScheduledAtNowRunsAfterTheCurrentOneAndSamePriorityPeers) {
  VirtualRuntime rt(1);
  Log log(rt);
  log.hook = [&](std::uint32_t tag) {
    if (tag == 1) rt.schedule(rt.now(), Priority::kTimer, &log, 3);
  };
  rt.schedule(7, Priority::kTimer, &log, 1);
  rt.schedule(7, Priority::kTimer, &log, 2);  // already pending at 7, same class
  EXPECT_TRUE(rt.step());
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1}));
  rt.run_until(7);
  // 3 was scheduled after 2, so it runs after 2 within the timer class.
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 2, 3}));
}

TEST(VirtualRuntime, CallbackCanCancelAPeerAtTheSameTime) {
  VirtualRuntime rt(1);
  Log log(rt);
  TimerId victim;
  log.hook = [&](std::uint32_t tag) {
    if (tag == 1) rt.cancel(victim);
  };
  rt.schedule(4, Priority::kScripted, &log, 1);
  victim = rt.schedule(4, Priority::kTimer, &log, 2);
  rt.schedule(4, Priority::kBackend, &log, 3);
  rt.run_until(4);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 3}));
}

TEST(VirtualRuntime, RunUntilStopsAtTAndSetsTheClock) {
  VirtualRuntime rt(1);
  Log log(rt);
  rt.schedule(10, Priority::kTimer, &log, 1);
  rt.schedule(20, Priority::kBackend, &log, 2);
  rt.schedule(30, Priority::kTimer, &log, 3);
  rt.run_until(20);  // inclusive: the timer at exactly 20 fires
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(rt.now(), 20);
  rt.run_until(25);  // nothing due: the clock still moves to 25
  EXPECT_EQ(log.fired.size(), 2u);
  EXPECT_EQ(rt.now(), 25);
  EXPECT_EQ(rt.next_time(), 30);
  EXPECT_FALSE(rt.step(29));  // not due by 29: the clock stays
  EXPECT_EQ(rt.now(), 25);
  EXPECT_TRUE(rt.step(30));
  EXPECT_EQ(rt.now(), 30);
  EXPECT_FALSE(rt.step());  // nothing left
  EXPECT_EQ(rt.now(), 30);
  rt.run_until(100);
  EXPECT_EQ(rt.now(), 100);
  rt.run_until(50);  // never back in time
  EXPECT_EQ(rt.now(), 100);
}

TEST(VirtualRuntime, PendingCountsOnlyLiveTimers) {
  VirtualRuntime rt(1);
  Log log(rt);
  std::vector<TimerId> ids;
  for (int i = 0; i < 1000; ++i) {
    ids.push_back(rt.schedule(1000 - i, Priority::kTimer, &log, static_cast<std::uint32_t>(i)));
  }
  EXPECT_EQ(rt.pending(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    if (i != 500) rt.cancel(ids[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(rt.pending(), 1u);     // 999 cancelled timers are really gone
  EXPECT_EQ(rt.next_time(), 500);  // tag 500 is due at 1000 - 500
  // Schedule-and-cancel churn never grows the queue.
  for (int i = 0; i < 100000; ++i) {
    TimerId t = rt.schedule(2000 + i % 7, Priority::kBackend, &log, 9);
    rt.cancel(t);
  }
  EXPECT_EQ(rt.pending(), 1u);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{500}));
}

TEST(VirtualRuntime, StreamsAreSeededAndIndependent) {
  VirtualRuntime a(5), b(5), c(6);
  EXPECT_EQ(a.rng(Stream::kDurations).next(), b.rng(Stream::kDurations).next());
  EXPECT_NE(a.rng(Stream::kArrivals).next(), a.rng(Stream::kDurations).next());
  EXPECT_NE(a.rng(Stream::kBackend).next(), c.rng(Stream::kBackend).next());
  // A stream is one generator: drawing from it advances it.
  VirtualRuntime d(5);
  const std::uint64_t first = d.rng(Stream::kWorkers).next();
  EXPECT_NE(d.rng(Stream::kWorkers).next(), first);
}

// The reference model: a multimap ordered by (time, priority, scheduling sequence).
TEST(VirtualRuntime, RandomOperationsMatchAReferenceModel) {
  using Key = std::tuple<Time, int, std::uint64_t>;
  VirtualRuntime rt(1);
  Log log(rt);
  Rng rng(2718);
  std::map<Key, std::uint32_t> model;                     // key -> tag
  std::map<std::uint32_t, std::pair<Key, TimerId>> live;  // tag -> (key, handle)
  std::vector<TimerId> dead;                              // fired or cancelled handles
  std::vector<std::uint32_t> expected;
  std::uint64_t seq = 0;
  std::uint32_t next_tag = 0;
  for (int op = 0; op < 10000; ++op) {
    const std::uint64_t r = rng.below(100);
    if (r < 45) {  // schedule; times in a narrow window so ties are common
      const Time at = rt.now() + static_cast<Time>(rng.below(20));
      const int prio = static_cast<int>(rng.below(4));
      const std::uint32_t tag = next_tag++;
      const TimerId id = rt.schedule(at, static_cast<Priority>(prio), &log, tag);
      const Key key{at, prio, seq++};
      model.emplace(key, tag);
      live.emplace(tag, std::make_pair(key, id));
    } else if (r < 65 && !live.empty()) {  // cancel a live timer
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng.below(live.size())));
      TimerId id = it->second.second;
      rt.cancel(id);
      EXPECT_FALSE(id.pending());
      model.erase(it->second.first);
      dead.push_back(it->second.second);
      live.erase(it);
    } else if (r < 75 && !dead.empty()) {  // cancel a stale handle: must change nothing
      TimerId id = dead[rng.below(dead.size())];
      rt.cancel(id);
    } else {  // step, sometimes with a horizon that may stop it
      const Time until = rng.below(2) ? kNever : rt.now() + static_cast<Time>(rng.below(5));
      const bool due = !model.empty() && std::get<0>(model.begin()->first) <= until;
      ASSERT_EQ(rt.step(until), due) << "op " << op;
      if (due) {
        const auto [key, tag] = *model.begin();
        expected.push_back(tag);
        dead.push_back(live.at(tag).second);
        live.erase(tag);
        model.erase(model.begin());
        ASSERT_EQ(log.fired.back(), tag) << "op " << op;
        ASSERT_EQ(rt.now(), std::get<0>(key)) << "op " << op;
      }
    }
    ASSERT_EQ(rt.pending(), model.size()) << "op " << op;
    ASSERT_EQ(rt.next_time(), model.empty() ? kNever : std::get<0>(model.begin()->first));
  }
  // Drain what is left.
  for (const auto& [key, tag] : model) expected.push_back(tag);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, expected);
  EXPECT_EQ(rt.pending(), 0u);
  EXPECT_GT(expected.size(), 1000u);  // the run did exercise firing
}

}  // namespace
}  // namespace drainsim
