#include "engine/virtual_runtime.h"

#include <algorithm>
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
  // A cancelled timer's slot is freed when the queue reaches the timer: here.
  EXPECT_EQ(rt.next_time(), kNever);
  const TimerId b = rt.schedule(4, Priority::kTimer, &log, 2);
  ASSERT_EQ(b.slot, copy.slot);  // the point of the test: b reuses a's slot
  rt.cancel(copy);               // already cancelled: must not touch b
  rt.cancel(a);                  // a reset handle: no-op
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

TEST(VirtualRuntime, ChurnOfCancelledTimersIsCompactedAway) {
  // Lazy cancel: a cancelled entry stays queued until the queue reaches it or compacts.
  // 100,000 schedule-and-cancel pairs next to 10 live timers must not pile up.
  VirtualRuntime rt(1);
  Log log(rt);
  for (std::uint32_t i = 0; i < 10; ++i) rt.schedule(100 + i, Priority::kTimer, &log, i);
  std::size_t most = 0;
  for (int i = 0; i < 100000; ++i) {
    TimerId t = rt.schedule(50 + i % 100, Priority::kBackend, &log, 99);
    rt.cancel(t);
    most = std::max(most, rt.queued());
  }
  EXPECT_EQ(rt.pending(), 10u);
  EXPECT_LE(most, 10u + 256u);  // compacted once the cancelled exceed 256 and the live
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(rt.queued(), 0u);
}

TEST(VirtualRuntime, CancelledFarTimersAreDroppedAndTheRestKeepTheirOrder) {
  // 1,000 live timers over the next millisecond, then 100,000 far ones (a lease each,
  // beyond the calendar's year) scheduled and cancelled: the queue stays within the live
  // timers and the compaction threshold, and the live ones fire in order.
  VirtualRuntime rt(1);
  Log log(rt);
  for (std::uint32_t i = 0; i < 1000; ++i) rt.schedule(1000 - i, Priority::kTimer, &log, i);
  EXPECT_EQ(rt.next_time(), 1);  // lays out the calendar
  std::size_t most = 0;
  for (std::uint32_t i = 0; i < 100000; ++i) {
    TimerId t = rt.schedule(kHour + i, Priority::kBackend, &log, 5000);
    rt.cancel(t);
    most = std::max(most, rt.queued());
  }
  EXPECT_LE(most, 1000u + 1000u + 1u);
  rt.run_until(kNever);
  ASSERT_EQ(log.fired.size(), 1000u);
  for (std::uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(log.fired[i], 999 - i);
}

TEST(VirtualRuntime, ATimerInAReservedPlaceFiresAsIfScheduledWhenThePlaceWasTaken) {
  // Three kBackend timers at 5 µs: the second is scheduled last, into the place reserved
  // before the third was scheduled, so it fires between the first and the third. A kTimer
  // one at 5 µs goes before all three, whatever its place.
  VirtualRuntime rt(1);
  Log log(rt);
  rt.schedule(5, Priority::kBackend, &log, 1);
  const std::uint64_t place = rt.reserve_place();
  rt.schedule(5, Priority::kBackend, &log, 3);
  rt.schedule(5, Priority::kTimer, &log, 0);
  rt.schedule_at_place(place, 5, Priority::kBackend, &log, 2);
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

TEST(VirtualRuntime, ManyCancellationsThenCompactionKeepOrder) {
  // 20,000 timers over 0..9,999 µs (so ties in time are common), four classes; every timer
  // whose tag is not a multiple of 10 is cancelled, which compacts several times. The
  // survivors fire sorted by (time, class, tag), tags being in scheduling order.
  VirtualRuntime rt(1);
  Log log(rt);
  Rng rng(31);
  std::vector<TimerId> ids;
  std::vector<std::tuple<Time, int, std::uint32_t>> survivors;
  Time earliest = kNever;
  for (std::uint32_t tag = 0; tag < 20000; ++tag) {
    const Time at = static_cast<Time>(rng.below(10000));
    earliest = std::min(earliest, at);
    const int prio = static_cast<int>(rng.below(4));
    ids.push_back(rt.schedule(at, static_cast<Priority>(prio), &log, tag));
    if (tag % 10 == 0) survivors.emplace_back(at, prio, tag);
  }
  EXPECT_EQ(rt.next_time(), earliest);  // lays out the calendar before the cancellations
  for (std::uint32_t tag = 0; tag < 20000; ++tag) {
    if (tag % 10 != 0) rt.cancel(ids[tag]);
  }
  EXPECT_EQ(rt.pending(), 2000u);
  // Compacted once the cancelled exceed the live timers, 256 and a quarter of the calendar's
  // buckets (about 10,000 buckets of 1 µs here).
  EXPECT_LE(rt.queued(), 2000u + 2500u);
  std::sort(survivors.begin(), survivors.end());
  std::vector<std::uint32_t> expected;
  for (const auto& s : survivors) expected.push_back(std::get<2>(s));
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, expected);
}

TEST(VirtualRuntime, ManyTimersAtOneInstantFireByClassThenSequence) {
  // 10,000 timers at t = 1,000, classes cycling backwards, so they all land in one
  // calendar bucket; the first one fired schedules more at the same instant.
  VirtualRuntime rt(1);
  Log log(rt);
  std::vector<std::uint32_t> by_class[4];
  for (std::uint32_t tag = 0; tag < 10000; ++tag) {
    const int prio = 3 - static_cast<int>(tag % 4);
    rt.schedule(1000, static_cast<Priority>(prio), &log, tag);
    by_class[prio].push_back(tag);
  }
  log.hook = [&](std::uint32_t tag) {
    if (tag == 3) {  // class 0, the first to fire: adds a class-0 and a class-3 timer
      rt.schedule(1000, Priority::kScripted, &log, 20000);
      rt.schedule(1000, Priority::kBackend, &log, 20001);
    }
  };
  by_class[0].push_back(20000);
  by_class[3].push_back(20001);
  std::vector<std::uint32_t> expected;
  for (const auto& c : by_class) expected.insert(expected.end(), c.begin(), c.end());
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, expected);
}

TEST(VirtualRuntime, TimersFarBeyondTheCalendarYearKeepTheirOrder) {
  // A dense cluster (1,000 timers in the first millisecond) sets a fine bucket width; the
  // far timers (an hour, a year, the end of time) stay in the overflow and must still fire
  // in order, ties at kNever by class then sequence.
  VirtualRuntime rt(1);
  Log log(rt);
  rt.schedule(kNever, Priority::kBackend, &log, 9005);
  rt.schedule(kNever, Priority::kScripted, &log, 9004);
  rt.schedule(kNever - 1, Priority::kBackend, &log, 9003);
  rt.schedule(365 * 24 * 3600 * kSecond, Priority::kTimer, &log, 9002);
  rt.schedule(3600 * kSecond, Priority::kTimer, &log, 9001);
  std::vector<std::uint32_t> expected;
  for (std::uint32_t tag = 0; tag < 1000; ++tag) {
    rt.schedule(static_cast<Time>(tag), Priority::kTimer, &log, tag);
    expected.push_back(tag);
  }
  // The first of the dense timers schedules one just past an hour, fired after 9001.
  log.hook = [&](std::uint32_t tag) {
    if (tag == 0) rt.schedule(3600 * kSecond + 1, Priority::kScripted, &log, 9100);
  };
  expected.insert(expected.end(), {9001, 9100, 9002, 9003, 9004, 9005});
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, expected);
  EXPECT_EQ(rt.now(), kNever);
}

TEST(VirtualRuntime, TimersMonthsApartKeepTheirOrder) {
  // 20 timers 30 days apart (and a second, earlier-class one at each instant) would want
  // buckets far wider than a queued timer's 32-bit offset can span: the calendar is capped
  // at 2^32 µs, so it is laid out again for each of them. Each firing also schedules one
  // 1 µs later, which goes into the current bucket.
  VirtualRuntime rt(1);
  Log log(rt);
  constexpr Time kMonth = 30 * 24 * 3600 * kSecond;
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < 20; ++i) {
    rt.schedule(static_cast<Time>(i) * kMonth, Priority::kBackend, &log, 2 * i + 1);
    rt.schedule(static_cast<Time>(i) * kMonth, Priority::kTimer, &log, 2 * i);
    expected.insert(expected.end(), {2 * i, 2 * i + 1, 1000 + 2 * i, 1000 + 2 * i + 1});
  }
  log.hook = [&](std::uint32_t tag) {
    if (tag < 1000) rt.schedule(rt.now() + 1, Priority::kTimer, &log, 1000 + tag);
  };
  rt.run_until(kNever);
  EXPECT_EQ(log.fired, expected);
  EXPECT_EQ(log.times.back(), 19 * kMonth + 1);
}

TEST(VirtualRuntime, ATimerEarlierThanTheCalendarStillFiresFirst) {
  // next_time() lays out a calendar that starts at 5,000 without moving the clock (0);
  // a timer scheduled afterwards at 10 is due before that calendar starts.
  VirtualRuntime rt(1);
  Log log(rt);
  for (std::uint32_t i = 0; i < 100; ++i) {
    rt.schedule(5000 + 10 * static_cast<Time>(i), Priority::kTimer, &log, i);
  }
  EXPECT_EQ(rt.next_time(), 5000);
  rt.schedule(10, Priority::kTimer, &log, 500);
  rt.schedule(4999, Priority::kTimer, &log, 501);
  EXPECT_EQ(rt.next_time(), 10);
  rt.run_until(kNever);
  ASSERT_EQ(log.fired.size(), 102u);
  EXPECT_EQ(log.fired[0], 500u);
  EXPECT_EQ(log.fired[1], 501u);
  EXPECT_EQ(log.fired[2], 0u);
  EXPECT_EQ(log.fired.back(), 99u);
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

// As above, with delays from 1 µs to 17 minutes and a few hundred timers pending, so the
// calendar is laid out again many times with very different bucket widths.
TEST(VirtualRuntime, RandomOperationsOverManyTimeScalesMatchAReferenceModel) {
  using Key = std::tuple<Time, int, std::uint64_t>;
  VirtualRuntime rt(1);
  Log log(rt);
  Rng rng(1618);
  std::map<Key, std::uint32_t> model;
  std::map<std::uint32_t, std::pair<Key, TimerId>> live;
  std::uint64_t seq = 0;
  std::uint32_t next_tag = 0;
  for (int op = 0; op < 200000; ++op) {
    const std::uint64_t r = rng.below(100);
    if (r < 40 || live.size() < 300) {
      const Time scale = Time{1} << rng.below(31);
      const Time at = rt.now() + static_cast<Time>(rng.below(static_cast<std::uint64_t>(scale)));
      const int prio = static_cast<int>(rng.below(4));
      const std::uint32_t tag = next_tag++;
      const Key key{at, prio, seq++};
      model.emplace(key, tag);
      live.emplace(tag,
                   std::make_pair(key, rt.schedule(at, static_cast<Priority>(prio), &log, tag)));
    } else if (r < 60) {
      auto it = live.lower_bound(static_cast<std::uint32_t>(rng.below(next_tag)));
      if (it == live.end()) it = live.begin();
      TimerId id = it->second.second;
      rt.cancel(id);
      model.erase(it->second.first);
      live.erase(it);
    } else {
      ASSERT_TRUE(rt.step()) << "op " << op;
      const auto [key, tag] = *model.begin();
      ASSERT_EQ(log.fired.back(), tag) << "op " << op;
      ASSERT_EQ(rt.now(), std::get<0>(key)) << "op " << op;
      live.erase(tag);
      model.erase(model.begin());
    }
    ASSERT_EQ(rt.pending(), model.size()) << "op " << op;
  }
  std::vector<std::uint32_t> rest;
  for (const auto& [key, tag] : model) rest.push_back(tag);
  const std::size_t done = log.fired.size();
  rt.run_until(kNever);
  EXPECT_EQ(
      std::vector<std::uint32_t>(log.fired.begin() + static_cast<long>(done), log.fired.end()),
      rest);
}

}  // namespace
}  // namespace drainsim
