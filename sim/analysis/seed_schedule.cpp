#include "analysis/seed_schedule.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "analysis/seed_run.h"
#include "model/metrics.h"
#include "run/run_scenario.h"

namespace drainsim {

namespace {

// One setting's progress, under the schedule's lock.
struct SettingState {
  std::size_t taken = 0;                        // seeds handed out, in order
  std::vector<SweepRunResult> kept;             // the first runs, none of which stopped it
  std::map<std::size_t, SweepRunResult> early;  // finished ahead of a seed still running
  bool done = false;                            // stopped, or every seed kept
};

}  // namespace

SeedSchedule run_seed_schedule(const SeedScheduleSpec& spec) {
  const std::size_t n_settings = spec.settings.size(), n_seeds = spec.seeds.size();
  std::vector<SettingState> state(n_settings);
  std::mutex mu;
  std::condition_variable changed;
  std::size_t runs_done = 0;
  std::exception_ptr failure;

  // The next run: the live setting with the fewest seeds handed out (the first on a tie).
  const auto take = [&]() -> std::optional<std::pair<std::size_t, std::size_t>> {
    if (failure) return std::nullopt;
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < n_settings; ++i) {
      const SettingState& s = state[i];
      if (s.done || s.taken == n_seeds) continue;
      if (!best || s.taken < state[*best].taken) best = i;
    }
    if (!best) return std::nullopt;
    return std::pair{*best, state[*best].taken++};
  };
  // Under the lock: run `seed` of setting `i` is in; keep what now follows in order.
  const auto finish = [&](std::size_t i, std::size_t seed, SweepRunResult r) {
    SettingState& s = state[i];
    if (s.done) return;  // stopped while this one ran: dropped
    s.early.emplace(seed, std::move(r));
    for (auto it = s.early.begin(); !s.done && it != s.early.end() && it->first == s.kept.size();
         it = s.early.erase(it)) {
      s.kept.push_back(std::move(it->second));
      s.done = s.kept.size() == n_seeds || (spec.stop && spec.stop(i, s.kept));
    }
    if (s.done) s.early.clear();
  };

  unsigned threads = spec.threads ? spec.threads : std::thread::hardware_concurrency();
  threads = static_cast<unsigned>(
      std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n_settings * n_seeds, 1)));
  std::size_t working = threads;  // under mu
  const auto work = [&] {
    std::unique_lock lock(mu);
    while (const auto task = take()) {
      const auto [i, seed] = *task;
      lock.unlock();
      SweepRunResult r;
      r.task = seed;
      std::exception_ptr error;
      try {
        Scenario s = spec.settings[i];
        s.seed = spec.seeds[seed];
        const RunOutput run = run_scenario(s, RunOptions{});
        r.run = seed_run(s.seed, run);
        collect_metrics(run.summary, r.metrics);
        if (spec.derive) spec.derive(r);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      ++runs_done;
      if (error) {
        if (!failure) failure = error;
      } else {
        finish(i, seed, std::move(r));
      }
      changed.notify_all();
    }
    --working;
    changed.notify_all();
  };
  std::vector<std::jthread> pool;
  for (unsigned k = 0; k < threads; ++k) pool.emplace_back(work);
  {
    std::unique_lock lock(mu);
    std::size_t reported = 0;
    while (working > 0) {
      changed.wait(lock);
      if (spec.progress && runs_done != reported) {
        reported = runs_done;
        lock.unlock();
        spec.progress(reported);
        lock.lock();
      }
    }
  }
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  SeedSchedule out;
  out.runs_done = runs_done;
  for (SettingState& s : state) out.runs.push_back(std::move(s.kept));
  return out;
}

}  // namespace drainsim
