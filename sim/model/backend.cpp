#include "model/backend.h"

#include <algorithm>

#include <fmt/format.h>

namespace drainsim {

Backend::Backend(Runtime& runtime, const BackendConfig& config, BackendMechanisms mechanisms,
                 Recorder& recorder, BackendFaults faults)
    : rt_(runtime),
      config_(config),
      mechanisms_(mechanisms),
      recorder_(recorder),
      faults_(faults),
      class_held_(config.class_serial.size(), 0),
      class_live_(config.class_singleton.size(), 0),
      sweeps_(reliable() && ((mechanisms.lease.enabled && mechanisms.lease.check_interval > 0 &&
                              !mechanisms.lease.checked_by_workers) ||
                             mechanisms.rescuer.enabled)) {}

int Backend::queue(const std::string& name) {
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].name == name) return static_cast<int>(i);
  }
  queues_.push_back(Queue{name, {}, {}});
  return static_cast<int>(queues_.size() - 1);
}

std::optional<JobId> Backend::enqueue(int queue, const JobSpec& spec) {
  if (config_.singleton(spec.job_class)) {
    std::uint32_t& live = class_live_[spec.job_class];
    if (live > 0) {  // its key is taken (pg-boss: INSERT ... ON CONFLICT DO NOTHING)
      recorder_.push_refused();
      return std::nullopt;
    }
    ++live;
  }
  const std::uint32_t handle = jobs_.acquire();
  const JobId id = next_id_++;
  // Field by field: a temporary Job copied in whole makes the copy wait on the narrow
  // stores that built it (a store-forwarding stall on every job).
  Job& job = jobs_[handle];
  job.id = id;
  job.lease_deadline = 0;
  job.fetched_at = 0;
  job.progress = 0;
  job.timer = TimerId{};
  job.prev = job.next = kNil;
  job.holder = kNoWorker;
  job.attempt = 0;
  job.claims = 0;
  job.stalls = 0;
  job.crashes = 0;
  job.marked = false;
  job.queue = static_cast<std::int16_t>(queue);
  job.state = JobState::kAvailable;
  job.live = true;
  job.in_process = false;
  job.stranded = false;
  job.ledger = recorder_.job_enqueued(id, rt_.now(), handle);
  // Copied only now: the workload has just written the spec field by field, and a
  // wider load over those stores would wait for them to drain.
  job.spec = spec;
  make_available(handle, false);
  return id;
}

WorkerId Backend::register_worker(std::span<const int> queues, WorkerListener* listener, int pod) {
  const WorkerId id = static_cast<WorkerId>(workers_.size());
  const auto queues_at = static_cast<std::uint32_t>(worker_queues_.size());
  worker_queues_.insert(worker_queues_.end(), queues.begin(), queues.end());
  Worker& w = workers_.emplace_back();
  w.queues_at = queues_at;
  w.queue_count = static_cast<std::uint32_t>(queues.size());
  w.listener = listener;
  w.pod = pod;
  w.last_heartbeat = rt_.now();
  arm_deadline(id);
  if (mechanisms_.poll_per_process > 0) {
    w.poll = rt_.schedule(
        rt_.now() + mechanisms_.poll_initial_wait +
            static_cast<Duration>(rt_.rng(Stream::kBackend).uniform() *
                                  static_cast<double>(mechanisms_.poll_initial_jitter)),
        Priority::kBackend, this, kPoll, id);
  }
  if (reliable() && mechanisms_.lease.enabled && mechanisms_.lease.checked_by_workers) {
    worker_check(id, true);  // at its start, before its first fetch
  }
  if (mechanisms_.fetch == FetchMode::kPrivateList &&
      (last_cleanup_ < 0 || rt_.now() - last_cleanup_ >= mechanisms_.cleanup_interval)) {
    last_cleanup_ = rt_.now();
    clean_up_parked();
  }
  return id;
}

void Backend::clean_up_parked() {
  const Time now = rt_.now();
  for (Worker& w : workers_) {
    if (w.active_head == kNil || w.last_heartbeat + mechanisms_.process_ttl > now) continue;
    while (w.active_head != kNil) recover(w.active_head, ErrorKind::kWorkerDeath, false);
  }
}

void Backend::arm_deadline(WorkerId worker) {
  if (!mechanisms_.heartbeat_detection) return;
  Worker& w = workers_[worker];
  w.deadline = rt_.schedule(w.last_heartbeat + config_.heartbeat_timeout, Priority::kBackend, this,
                            kWorkerDeadline, worker);
}

void Backend::deregister(WorkerId worker) {
  Worker& w = workers_[worker];
  if (w.status != WorkerStatus::kAlive) return;
  w.status = WorkerStatus::kGone;
  w.late.clear();
  rt_.cancel(w.deadline);
  rt_.cancel(w.check);
  rt_.cancel(w.poll);
  switch (mechanisms_.fetch) {
    case FetchMode::kReliable:
    case FetchMode::kUntilStarted:
      recover_held(worker);
      break;
    case FetchMode::kPrivateList:
      while (w.active_head != kNil) recover(w.active_head, ErrorKind::kWorkerDeath, false);
      break;
    case FetchMode::kAtMostOnce:
      break;  // in the process's memory: lost at process_ended unless requeued
  }
}

void Backend::process_ended(WorkerId worker) {
  Worker& w = workers_[worker];
  rt_.cancel(w.check);  // its checker died with it
  rt_.cancel(w.poll);   // and its poller
  w.late.clear();       // and its fetches
  w.teardown_until = rt_.now() + (w.waiting ? mechanisms_.teardown_window : 0);
  w.handed.clear();  // held by a dead worker now, like the jobs it had started
  const bool at_most_once = mechanisms_.fetch == FetchMode::kAtMostOnce;
  const bool returns = reliable() && mechanisms_.returns_on_disconnect;
  const Time now = rt_.now();
  // Newest first; each recovered job goes to the front, so the oldest ends up first.
  for (std::uint32_t handle = w.active_head, next; handle != kNil; handle = next) {
    next = jobs_[handle].next;
    if (at_most_once || jobs_[handle].in_process) {
      take_back(handle);
      recorder_.job_lost(
          jobs_[handle].ledger, now,
          jobs_[handle].stranded
              ? fmt::format("taken by a fetch of worker {} still blocked after it stopped "
                            "fetching, never run, when its process ended",
                            worker)
              : fmt::format("held in memory by worker {} when its process ended ({})", worker,
                            at_most_once ? "at-most-once fetch" : "acknowledged when it started"),
          w.pod);
      finish(handle);
    } else if (returns) {
      recover(handle, ErrorKind::kWorkerDeath, false, true);
    }
  }
}

void Backend::recover_held(WorkerId worker) {
  for (std::uint32_t handle = workers_[worker].active_head, next; handle != kNil; handle = next) {
    next = jobs_[handle].next;
    if (!jobs_[handle].in_process) recover(handle, ErrorKind::kWorkerDeath);
  }
}

void Backend::claim(std::uint32_t handle, WorkerId worker) {
  const Time now = rt_.now();
  Job& job = jobs_[handle];
  Worker& w = workers_[worker];
  job.marked = false;
  job.in_process = false;
  job.stranded = false;
  job.state = JobState::kActive;
  job.holder = worker;
  ++job.attempt;
  ++job.claims;
  job.fetched_at = now;
  job.lease_deadline = now + config_.visibility_timeout;
  if (config_.serial(job.spec.job_class)) ++class_held_[job.spec.job_class];
  if (lease_timers()) list_lease(handle);
  job.prev = kNil;
  job.next = w.active_head;
  if (w.active_head != kNil) jobs_[w.active_head].prev = handle;
  w.active_head = handle;
  ++active_;
  recorder_.job_claimed(job.ledger, now);
}

void Backend::lease_of(std::uint32_t handle, Lease& out) const {
  const Job& job = jobs_[handle];
  out.id = job.id;
  out.handle = handle;
  out.ledger = job.ledger;
  out.attempt = job.attempt;
  out.progress = job.progress;
  out.spec = job.spec;
  out.claim = job.claims;
  out.expires = job.fetched_at + config_.visibility_timeout;
}

void Backend::fetch(WorkerId worker, int count, std::vector<Lease>& out) {
  Worker& w = workers_[worker];
  w.waiting = false;  // a fetch ends a wait; a worker with free slots left waits again
  // No job goes back to this worker meanwhile: it no longer waits. The list keeps its
  // buffer for the next wait.
  for (const Lease& lease : w.handed) {
    if (!holds(worker, lease)) continue;  // taken back meanwhile
    if (count > 0) {
      out.push_back(lease);
      --count;
    } else {
      give_back(lease.handle);
    }
  }
  w.handed.clear();
  if (!takes_jobs(w)) return;
  for (int q : queues_of(w)) {
    auto& available = queues_[q].available;
    if (available.empty()) continue;  // the usual case, without the deque's size()
    for (std::size_t i = 0; count > 0 && i < available.size();) {
      const std::uint32_t handle = available[i];
      Job& job = jobs_[handle];
      if (locked(job)) {  // waits for its class's held job
        ++i;
        continue;
      }
      available.erase(available.begin() + static_cast<std::ptrdiff_t>(i));
      if (job.stalls > mechanisms_.lease.max_stalls) {  // kStall: failed when next fetched
        discard(handle, ErrorKind::kStalled);
        continue;
      }
      claim(handle, worker);
      lease_of(handle, out.emplace_back());
      --count;
    }
  }
  arm_sweeps();
}

void Backend::arm_sweep_timers() {
  const LeaseExpiry& lease = mechanisms_.lease;
  if (lease.enabled && lease.check_interval > 0 && !lease.checked_by_workers &&
      !lease_sweep_.pending()) {
    lease_sweep_ =
        rt_.schedule(next_tick(lease.check_interval), Priority::kBackend, this, kLeaseSweep);
  }
  const Rescuer& rescuer = mechanisms_.rescuer;
  if (rescuer.enabled && !rescue_sweep_.pending()) {
    rescue_sweep_ =
        rt_.schedule(next_tick(rescuer.interval), Priority::kBackend, this, kRescueSweep);
  }
}

bool Backend::holds(WorkerId worker, const Lease& lease) const {
  if (lease.handle >= jobs_.size()) return false;
  const Job& job = jobs_[lease.handle];
  return job.live && job.id == lease.id && job.claims == lease.claim &&
         job.state == JobState::kActive && job.holder == worker &&
         workers_[worker].status != WorkerStatus::kDead;
}

bool Backend::accepts(CompletionFence fence, WorkerId worker, const Lease& lease) const {
  switch (fence) {
    case CompletionFence::kLease:
      return holds(worker, lease) && !token_gone(jobs_[lease.handle]);
    case CompletionFence::kJobId:
    case CompletionFence::kJobIdWhileActive: {
      if (lease.handle >= jobs_.size()) return false;
      const Job& job = jobs_[lease.handle];
      if (!job.live || job.id != lease.id) return false;
      return fence == CompletionFence::kJobId || job.state == JobState::kActive;
    }
  }
  return false;
}

void Backend::withdraw(std::uint32_t handle) {
  if (jobs_[handle].state == JobState::kAvailable) unqueue(handle);
  take_back(handle);
}

void Backend::unqueue(std::uint32_t handle) {
  auto& available = queues_[jobs_[handle].queue].available;
  if (available.front() == handle) {
    available.pop_front();
  } else if (available.back() == handle) {
    available.pop_back();
  } else {
    available.erase(std::find(available.begin(), available.end(), handle));
  }
}

bool Backend::ack(WorkerId worker, const Lease& lease) {
  if (!accepts(mechanisms_.ack_fence, worker, lease)) {
    recorder_.report_rejected(lease.ledger, true);
    return false;
  }
  Job& job = jobs_[lease.handle];
  withdraw(lease.handle);
  if (faults_.drop_acked_job == job.id) {
    finish(lease.handle);  // the injected fault: forget the job, tell no one
    return true;
  }
  job.state = JobState::kCompleted;
  recorder_.job_completed(job.ledger, rt_.now());
  finish(lease.handle);
  return true;
}

bool Backend::fail(WorkerId worker, const Lease& lease, ErrorKind error, bool retryable,
                   Duration progress) {
  if (!accepts(mechanisms_.fail_fence, worker, lease)) {
    recorder_.report_rejected(lease.ledger, false);
    return false;
  }
  Job& job = jobs_[lease.handle];
  withdraw(lease.handle);
  job.progress = std::max(job.progress, progress);
  retry_or_discard(lease.handle, error, retryable);
  return true;
}

bool Backend::requeue(WorkerId worker, const Lease& lease, bool front) {
  if (!holds(worker, lease)) {
    recorder_.report_rejected(lease.ledger, false);
    return false;
  }
  recover(lease.handle, ErrorKind::kShutdown, false, front);
  return true;
}

void Backend::started(WorkerId worker, const Lease& lease) {
  if (mechanisms_.fetch != FetchMode::kUntilStarted || !holds(worker, lease)) return;
  Job& job = jobs_[lease.handle];
  job.in_process = true;
  rt_.cancel(job.timer);
  unlist_lease(lease.handle);
}

void Backend::release(WorkerId worker, const Lease& lease) {
  if (holds(worker, lease)) give_back(lease.handle);
}

void Backend::discard(std::uint32_t handle, ErrorKind why) {
  Job& job = jobs_[handle];
  job.state = JobState::kDiscarded;
  recorder_.job_discarded(job.ledger, rt_.now(), why, job.progress);
  finish(handle);
}

Directive Backend::heartbeat(WorkerId worker, Directive state, std::span<const Lease> active) {
  Worker& w = workers_[worker];
  if (w.status != WorkerStatus::kAlive) return Directive::kTerminate;
  w.last_heartbeat = rt_.now();
  w.reported = state;
  // It will not fetch them, unless a late fetch took them (cancel_wait).
  if (state != Directive::kRunning && !w.late_handed) give_back_handed(worker);
  if (!mechanisms_.lease.renewed_by_heartbeat) return w.directive;
  for (const Lease& lease : active) {
    if (holds(worker, lease)) {
      Job& job = jobs_[lease.handle];
      if (token_gone(job)) continue;
      job.lease_deadline = rt_.now() + config_.visibility_timeout;
      job.marked = false;  // BullMQ's extendLock: SREM from the stalled set
    }
  }
  return w.directive;
}

void Backend::set_directive(WorkerId worker, Directive directive) {
  Worker& w = workers_[worker];
  w.directive = std::max(w.directive, directive);
}

void Backend::checkpoint(const Lease& lease, Duration progress) {
  if (lease.handle >= jobs_.size()) return;
  Job& job = jobs_[lease.handle];
  if (job.live && job.id == lease.id) job.progress = std::max(job.progress, progress);
}

std::optional<JobState> Backend::job_state(std::uint32_t handle, JobId id) const {
  if (handle >= jobs_.size() || !jobs_[handle].live || jobs_[handle].id != id) return std::nullopt;
  return jobs_[handle].state;
}

void Backend::detach(std::uint32_t handle) {
  Job& job = jobs_[handle];
  if (job.holder == kNoWorker) return;
  Worker& w = workers_[job.holder];
  if (job.prev != kNil) {
    jobs_[job.prev].next = job.next;
  } else {
    w.active_head = job.next;
  }
  if (job.next != kNil) jobs_[job.next].prev = job.prev;
  job.prev = job.next = kNil;
  job.holder = kNoWorker;
  const std::uint16_t c = job.spec.job_class;
  if (config_.serial(c) && --class_held_[c] == 0) {
    // After the operation that released it, which may hand this very job back.
    rt_.schedule(rt_.now(), Priority::kBackend, this, kUnlock, c);
  }
  if (--active_ == 0) {  // nothing left to sweep: no timer keeps an idle run going
    rt_.cancel(lease_sweep_);
    rt_.cancel(rescue_sweep_);
  }
}

void Backend::take_back(std::uint32_t handle) {
  detach(handle);
  rt_.cancel(jobs_[handle].timer);
  unlist_lease(handle);
}

void Backend::finish(std::uint32_t handle) {
  Job& job = jobs_[handle];
  if (config_.singleton(job.spec.job_class)) --class_live_[job.spec.job_class];
  unlist_lease(handle);
  job.live = false;
  jobs_.release(handle);
}

void Backend::recover(std::uint32_t handle, ErrorKind why, bool counts_attempt, bool front) {
  Job& job = jobs_[handle];
  take_back(handle);
  recorder_.job_recovered(job.ledger, rt_.now());
  if (mechanisms_.crashes.enabled && why == ErrorKind::kWorkerDeath) {
    crashed(handle);
    return;
  }
  if (!counts_attempt) {
    --job.attempt;
  } else if (job.attempt >= config_.retry_of(job.spec.job_class).max_attempts) {
    discard(handle, why);
    return;
  }
  make_available(handle, front);
}

void Backend::expire_lease(std::uint32_t handle) {
  const LeaseExpiry& lease = mechanisms_.lease;
  Job& job = jobs_[handle];
  switch (lease.fate) {
    case LeaseExpiry::Fate::kRequeue:
      recover(handle, ErrorKind::kVisibilityTimeout, lease.counts_attempt);
      break;
    case LeaseExpiry::Fate::kRetry:
      take_back(handle);
      recorder_.job_recovered(job.ledger, rt_.now());
      retry_or_discard(handle, ErrorKind::kVisibilityTimeout, true);
      break;
    case LeaseExpiry::Fate::kStall:
      ++job.stalls;
      recover(handle, ErrorKind::kStalled, false, true);  // BullMQ: RPUSH, picked up next
      break;
  }
}

void Backend::rescue(std::uint32_t handle) {
  if (!mechanisms_.rescuer.backoff) {
    recover(handle, ErrorKind::kRescued);
    return;
  }
  take_back(handle);
  recorder_.job_recovered(jobs_[handle].ledger, rt_.now());
  retry_or_discard(handle, ErrorKind::kRescued, true);
}

void Backend::worker_check(WorkerId worker, bool first) {
  Worker& w = workers_[worker];
  w.check = TimerId{};
  if (w.status != WorkerStatus::kAlive || w.reported != Directive::kRunning) return;  // closing
  const Duration interval = mechanisms_.lease.check_interval;
  if (!mechanisms_.lease.one_check_across_workers || last_check_ < 0 ||
      rt_.now() - last_check_ >= interval) {
    last_check_ = rt_.now();
    check_leases();
  }
  const Duration second = mechanisms_.lease.second_check_after;
  w.check = rt_.schedule(rt_.now() + (first && second > 0 ? second : interval), Priority::kBackend,
                         this, kWorkerCheck, worker);
}

void Backend::check_leases() {
  const Time now = rt_.now();
  // One pass, as BullMQ's script does it atomically: a job seen at the previous check whose
  // lock has lapsed goes back; every other active job is marked for the next check. A job
  // taken back and handed straight to a waiting worker is not marked (claim clears it), and
  // taking a job back frees nothing and adds nothing, so each slot is seen once.
  // Without the stalled set (kombu) every expired job goes back at once.
  const bool sighting = mechanisms_.lease.seen_at_previous_check;
  for (std::uint32_t handle = 0; handle < jobs_.size(); ++handle) {
    Job& job = jobs_[handle];
    if (!job.live || job.state != JobState::kActive || job.in_process) continue;
    if ((job.marked || !sighting) && job.lease_deadline <= now) {
      expire_lease(handle);
    } else {
      job.marked = true;
    }
  }
}

void Backend::worker_died(WorkerId worker) {
  Worker& w = workers_[worker];
  w.status = WorkerStatus::kDead;
  rt_.cancel(w.check);
  rt_.cancel(w.poll);
  w.waiting = false;
  if (!reliable()) return;  // its jobs are not in the shared store
  recover_held(worker);
}

void Backend::on_timer(std::uint32_t tag, std::uint64_t arg) {
  const Time now = rt_.now();
  switch (static_cast<Tag>(tag)) {
    case kLeaseExpiry:
      on_lease_due(static_cast<std::uint32_t>(arg));
      break;
    case kLeaseDue: {
      lease_timer_ = TimerId{};
      const std::uint32_t handle = lease_due_.front().handle;
      lease_due_.pop_front();
      lease_ticket_[handle] = 0;
      --leases_listed_;
      on_lease_due(handle);
      arm_lease_timer();
      break;
    }
    case kLeaseSweep:
    case kRescueSweep: {
      const bool lease = tag == kLeaseSweep;
      (lease ? lease_sweep_ : rescue_sweep_) = TimerId{};
      // In slot order. Taking a job back frees its record at most in place, and nothing
      // adds one meanwhile (listeners do not call back), so the scan sees every slot once.
      for (std::uint32_t handle = 0; handle < jobs_.size(); ++handle) {
        const Job& job = jobs_[handle];
        if (!job.live || job.state != JobState::kActive || job.in_process) continue;
        if (lease && job.lease_deadline <= now) {
          expire_lease(handle);
        } else if (!lease && job.fetched_at + mechanisms_.rescuer.after <= now) {
          rescue(handle);
        }
      }
      arm_sweeps();
      break;
    }
    case kWorkerDeadline: {
      const auto worker = static_cast<WorkerId>(arg);
      Worker& w = workers_[worker];
      w.deadline = TimerId{};
      if (w.status != WorkerStatus::kAlive) break;
      if (w.last_heartbeat + config_.heartbeat_timeout > now) {
        arm_deadline(worker);
      } else {
        worker_died(worker);
      }
      break;
    }
    case kWorkerCheck:
      worker_check(static_cast<WorkerId>(arg));
      break;
    case kUnlock:
      offer_next(static_cast<std::uint16_t>(arg));
      break;
    case kPoll:
      poll_scheduled(static_cast<WorkerId>(arg));
      break;
    case kRetryDue: {
      const auto handle = static_cast<std::uint32_t>(arg);
      jobs_[handle].timer = TimerId{};
      make_available(handle, false);
      break;
    }
  }
}

}  // namespace drainsim
