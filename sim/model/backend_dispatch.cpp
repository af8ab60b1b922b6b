// Backend, continued (backend.cpp has the rest): how available jobs reach the workers
// that wait for them: long-polls, the dispatch rule, jobs handed to a waiter until it
// fetches them, a stopped worker's late fetches, and the locks of serial classes.
#include "model/backend.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace drainsim {

void Backend::wait_for_jobs(WorkerId worker, Duration reissue) {
  Worker& w = workers_[worker];
  if (!takes_jobs(w) || mechanisms_.dispatch == Dispatch::kPoll) return;
  if (!w.waiting) w.wait_since = rt_.now();
  w.reissue = reissue;
  reissued_waits_ |= reissue > 0;
  w.waiting = true;
  list_places(worker);
}

void Backend::list_places(WorkerId worker) {
  Worker& w = workers_[worker];
  const std::span<const int> queues = queues_of(w);
  for (std::uint32_t i = 0; i < queues.size(); ++i) {
    if (w.listed >> i & 1) continue;
    w.listed |= std::uint64_t{1} << i;
    Waiter& waiter = queues_[queues[i]].waiting.emplace_back();  // in place: no stall
    waiter.worker = worker;
    waiter.index = i;
    waiter.listed_at = rt_.now();
  }
}

Time Backend::waiting_rank(const Waiter& x) const {
  const Worker& w = workers_[x.worker];
  const Duration t = w.reissue;
  if (t <= 0) return x.listed_at;
  // A worker that stopped fetching sends no more: its late fetch is the last one it sent.
  return w.wait_since + (rt_.now() - w.wait_since) / t * t;
}

bool Backend::has_jobs_for(WorkerId worker) const {
  const Worker& w = workers_[worker];
  if (!w.handed.empty()) return true;
  if (!takes_jobs(w)) return false;
  for (int q : queues_of(w)) {
    for (const std::uint32_t handle : queues_[q].available) {
      if (!locked(jobs_[handle])) return true;
    }
  }
  return false;
}

void Backend::cancel_wait(WorkerId worker, std::span<const Time> late) {
  Worker& w = workers_[worker];
  if (w.teardown_until > rt_.now()) return;  // the dead process's long-poll lingers
  const bool was_waiting = w.waiting;
  w.waiting = false;
  give_back_handed(worker);
  w.late.assign(late.begin(), late.end());
  w.late_handed = false;
  if (was_waiting && late_fetching(w)) w.waiting = true;  // its places stay listed
}

void Backend::strand(WorkerId worker, const Lease& lease) {
  // kPrivateList: the fetch moved it to the process's list in the store, where a later
  // cleanup finds it like any parked job.
  if (!holds(worker, lease) || mechanisms_.fetch == FetchMode::kPrivateList) return;
  Job& job = jobs_[lease.handle];
  job.in_process = job.stranded = true;
  rt_.cancel(job.timer);
  unlist_lease(lease.handle);
}

void Backend::give_back_handed(WorkerId worker) {
  // Called once the worker no longer waits or takes jobs, so none goes back to it meanwhile.
  std::vector<Lease>& handed = workers_[worker].handed;
  for (const Lease& lease : handed) {
    if (holds(worker, lease)) give_back(lease.handle);
  }
  handed.clear();
}

std::size_t Backend::wait_list_size() const {
  std::size_t n = 0;
  for (const Queue& q : queues_) n += q.waiting.size();
  return n;
}

void Backend::make_available(std::uint32_t handle, bool front) {
  Job& job = jobs_[handle];
  job.state = JobState::kAvailable;
  job.holder = kNoWorker;
  Queue& q = queues_[job.queue];
  if (front) {
    q.available.push_front(handle);
  } else {
    q.available.push_back(handle);
  }
  recorder_.job_available(job.ledger, rt_.now());
  offer(handle);
}

void Backend::offer(std::uint32_t handle) {
  if (locked(jobs_[handle])) return;
  Queue& q = queues_[jobs_[handle].queue];
  while (const std::optional<Waiter> waiter = next_waiter(q)) {
    Worker& w = workers_[waiter->worker];
    w.waiting = false;
    // Its process is gone and the kernel has closed its long-poll.
    if (w.teardown_until >= 0 && rt_.now() >= w.teardown_until) continue;
    if (w.teardown_until < 0 && !takes_jobs(w)) {
      // It stopped fetching; its longest-blocked fetch still in the store takes the job.
      const auto fetch = std::upper_bound(w.late.begin(), w.late.end(), rt_.now());
      w.late.erase(w.late.begin(), fetch + 1);
      w.late_handed = true;
      if (late_fetching(w)) {  // another of its fetches is still blocked
        w.waiting = true;
        list_places(waiter->worker);
      }
    }
    hand(handle, waiter->worker);
    break;
  }
}

std::optional<Backend::Waiter> Backend::next_waiter(Queue& q) {
  auto drop = [this](const Waiter& x) {
    workers_[x.worker].listed &= ~(std::uint64_t{1} << x.index);
  };
  auto stale = [this](const Waiter& x) {
    const Worker& w = workers_[x.worker];
    return !w.waiting || (!takes_jobs(w) && !late_fetching(w));
  };
  auto prune = [&] {
    std::erase_if(q.waiting, [&](const Waiter& x) {
      const bool gone = stale(x);
      if (gone) drop(x);
      return gone;
    });
    return !q.waiting.empty();
  };
  if (mechanisms_.dispatch == Dispatch::kRandomWaiter) {
    if (!prune()) return std::nullopt;
    const auto it = q.waiting.begin() +
                    static_cast<std::ptrdiff_t>(rt_.rng(Stream::kDispatch).below(q.waiting.size()));
    const Waiter x = *it;
    q.waiting.erase(it);
    drop(x);
    return x;
  }
  if (reissued_waits_) {
    // Some waits are re-sent blocking fetches: the earliest rank, first listed on a tie.
    if (!prune()) return std::nullopt;
    auto first = q.waiting.begin();
    Time best = waiting_rank(*first);
    for (auto it = std::next(first); it != q.waiting.end(); ++it) {
      if (const Time rank = waiting_rank(*it); rank < best) {
        best = rank;
        first = it;
      }
    }
    const Waiter x = *first;
    q.waiting.erase(first);
    drop(x);
    return x;
  }
  while (!q.waiting.empty()) {
    const Waiter x = q.waiting.front();
    q.waiting.pop_front();
    drop(x);
    if (!stale(x)) return x;
  }
  return std::nullopt;
}

void Backend::offer_next(std::uint16_t job_class) {
  if (class_held_[job_class] > 0) return;  // held again meanwhile
  for (const Queue& q : queues_) {
    for (const std::uint32_t handle : q.available) {
      if (jobs_[handle].spec.job_class == job_class) {
        offer(handle);
        return;
      }
    }
  }
}

void Backend::hand(std::uint32_t handle, WorkerId worker) {
  Worker& w = workers_[worker];
  const bool dead = w.teardown_until >= 0;
  unqueue(handle);
  if (jobs_[handle].stalls > mechanisms_.lease.max_stalls) {  // as at a fetch: failed for good
    discard(handle, ErrorKind::kStalled);
    if (!dead) w.listener->on_jobs_available();  // it fetches, finds nothing, waits again
    return;
  }
  claim(handle, worker);
  if (dead && mechanisms_.fetch == FetchMode::kAtMostOnce) {
    take_back(handle);
    recorder_.job_lost(jobs_[handle].ledger, rt_.now(),
                       fmt::format("handed to worker {}'s fetcher after its process was killed, "
                                   "before the kernel tore it down",
                                   worker),
                       w.pod);
    finish(handle);
    return;
  }
  arm_sweeps();
  if (dead) return;  // held by the dead worker: its recovery brings it back
  lease_of(handle, w.handed.emplace_back());
  w.listener->on_jobs_available();
}

void Backend::give_back(std::uint32_t handle) {
  take_back(handle);
  --jobs_[handle].attempt;
  make_available(handle, true);
}

}  // namespace drainsim
