#include "model/worker_core.h"

#include <algorithm>

namespace drainsim {

namespace {
constexpr Duration kRemainingLogInterval = 5 * kSecond;
}

WorkerCore::WorkerCore(Runtime& runtime, WorkerPort& port, const WorkerConfig& config)
    : rt_(runtime),
      port_(port),
      config_(config),
      slots_(static_cast<std::size_t>(config.concurrency)),
      busy_(static_cast<std::size_t>(config.concurrency), 0),
      reserve_limit_(static_cast<int>(std::min<std::int64_t>(
          std::int64_t{config.shutdown.reserve_per_slot} * config.concurrency,
          ShutdownBehaviour::kNoReserveLimit))),
      idle_since_(static_cast<std::size_t>(config.concurrency), 0),
      renewed_(static_cast<std::size_t>(config.concurrency), 0),
      expiry_(config.shutdown.fails_at_lease_expiry ? static_cast<std::size_t>(config.concurrency)
                                                    : 0) {
  scratch_.reserve(slots_.size());
}

const Lease* WorkerCore::lease(int slot) const { return busy_[slot] ? &slots_[slot] : nullptr; }

void WorkerCore::start() {
  std::fill(idle_since_.begin(), idle_since_.end(), rt_.now());
  heartbeat_ =
      rt_.schedule(rt_.now() + config_.heartbeat_interval, Priority::kTimer, this, kHeartbeat);
  fill_slots();
}

void WorkerCore::set_state(WorkerState s) {
  if (s == state_) return;
  state_ = s;
  port_.state_changed(s);
}

Directive WorkerCore::reported_state() const {
  return state_ == WorkerState::kRunning ? Directive::kRunning : Directive::kQuiet;
}

void WorkerCore::send_heartbeat(Directive state) {
  scratch_.clear();
  const bool renews =
      state_ != WorkerState::kDraining || config_.shutdown.renews_leases_while_draining;
  const bool aged_only = config_.shutdown.renews_only_aged_leases;
  for (std::size_t i = 0; renews && i < slots_.size(); ++i) {
    if (!busy_[i]) continue;
    if (aged_only) {
      if (rt_.now() - renewed_[i] < config_.heartbeat_interval) continue;
      renewed_[i] = rt_.now();
    }
    scratch_.push_back(slots_[i]);
  }
  port_.heartbeat(state, scratch_);
}

void WorkerCore::fill_slots() {
  if (state_ != WorkerState::kRunning) return;
  while (active_ < concurrency() && !reserve_.empty()) {
    const Lease lease = reserve_.front();
    reserve_.pop_front();
    start_in_free_slot(lease);
  }
  const int wanted = concurrency() - active_ + reserve_limit() - reserved();
  if (wanted <= 0 || fetching_) return;
  fetching_ = true;
  waiting_ = false;
  port_.fetch(wanted);
}

void WorkerCore::start_in_free_slot(const Lease& lease) {
  const auto slot =
      static_cast<std::size_t>(std::find(busy_.begin(), busy_.end(), 0) - busy_.begin());
  slots_[slot] = lease;
  busy_[slot] = 1;
  renewed_[slot] = rt_.now();
  ++active_;
  if (!expiry_.empty() && lease.expires != kNever) {
    expiry_[slot] =
        rt_.schedule(std::max(rt_.now(), lease.expires), Priority::kTimer, this, kExpiry, slot);
  }
  port_.start_job(static_cast<int>(slot), lease);
}

void WorkerCore::free_slot(std::size_t slot) {
  busy_[slot] = 0;
  idle_since_[slot] = rt_.now();
  --active_;
  if (!expiry_.empty()) rt_.cancel(expiry_[slot]);
}

void WorkerCore::on_lease_expiry(std::size_t slot) {
  expiry_[slot] = TimerId{};
  if (!busy_[slot] || state_ == WorkerState::kStopped) return;
  const Lease lease = slots_[slot];
  free_slot(slot);
  port_.detach_job(static_cast<int>(slot));
  port_.fail(static_cast<int>(slot), lease, ErrorKind::kVisibilityTimeout, true);
  after_slot_freed();
}

void WorkerCore::release_reserve() {
  for (const Lease& lease : reserve_) port_.release(lease);
  reserve_.clear();
}

void WorkerCore::on_fetched(std::span<const Lease> leases) {
  fetching_ = false;
  if (state_ == WorkerState::kStopped) return;  // a late reply: the process has exited
  for (const Lease& lease : leases) {
    if (state_ != WorkerState::kRunning) {  // a late fetch's: the backend hands no other
      late_fetched(lease);
    } else if (active_ < concurrency()) {
      start_in_free_slot(lease);
    } else {
      reserve_.push_back(lease);
    }
  }
  if (state_ == WorkerState::kRunning &&
      (active_ < concurrency() || reserved() < reserve_limit())) {
    waiting_ = true;
    waiting_since_ = rt_.now();
    port_.wait_for_jobs();
    if (!poll_.pending()) {
      poll_ = rt_.schedule(rt_.now() + config_.poll_interval, Priority::kTimer, this, kPoll);
    }
  }
}

void WorkerCore::on_jobs_available() {
  if (state_ == WorkerState::kRunning) {
    fill_slots();
  } else if (state_ != WorkerState::kStopped && !late_fetches_.empty() && !fetching_) {
    fetching_ = true;  // a fetch blocked since it stopped fetching took a job: collect it
    port_.fetch(concurrency());
  }
}

void WorkerCore::late_fetched(const Lease& lease) {
  const ShutdownBehaviour& b = config_.shutdown;
  if (b.late_fetch == ShutdownBehaviour::LateFetch::kHandBack &&
      (!deadline_passed_ ||
       !(b.late_fetch_killed > 0 && rt_.rng(Stream::kLateFetch).bernoulli(b.late_fetch_killed)))) {
    port_.release(lease);
  } else {
    port_.keep(lease);
  }
}

std::vector<Time> WorkerCore::late_fetches() const {
  std::vector<Time> out;
  if (state_ == WorkerState::kRunning || state_ == WorkerState::kStopped) return out;
  for (const Time t : late_fetches_) {
    if (t > rt_.now()) out.push_back(t);
  }
  return out;
}

void WorkerCore::on_job_finished(int slot, JobResult result) {
  if (!busy_[slot] || state_ == WorkerState::kStopped) return;
  const Lease lease = slots_[slot];
  free_slot(static_cast<std::size_t>(slot));
  switch (result) {
    case JobResult::kSucceeded:
      // The Go SDK's ACK during a drain uses the cancelled context and never arrives.
      if (!(state_ == WorkerState::kDraining && config_.shutdown.acks_fail_while_draining)) {
        port_.ack(slot, lease);
      }
      break;
    case JobResult::kFailed:
    case JobResult::kCancelled:
      // The Go SDK's FAIL during a drain goes out on the same cancelled context.
      if (!(state_ == WorkerState::kDraining && config_.shutdown.nacks_fail_while_draining)) {
        port_.fail(
            slot, lease,
            result == JobResult::kFailed ? ErrorKind::kHandler : config_.shutdown.deadline_error,
            true);
      }
      break;
    case JobResult::kChildLost:
      if (config_.shutdown.child_lost == ShutdownBehaviour::ChildLost::kRequeue) {
        port_.requeue(slot, lease);
      } else {
        port_.fail(slot, lease, ErrorKind::kWorkerDeath, false);
      }
      break;
  }
  after_slot_freed();
}

void WorkerCore::after_slot_freed() {
  if (state_ == WorkerState::kDraining) {
    if (active_ != 0) return;
    if (!deadline_passed_) {
      drain_done();
    } else if (!finish_.pending()) {
      finish_shutdown();  // kCancelAndWait: the last cancelled body returned
    }
    return;
  }
  fill_slots();
}

bool WorkerCore::on_signal(Signal signal) {
  const ShutdownBehaviour& b = config_.shutdown;
  switch (signal) {
    case Signal::kTerm:
    case Signal::kInt:
      if (!b.handles_term) return false;
      if (state_ == WorkerState::kStopped) return true;
      // A drain begun by a directive does not count as a TERM.
      if (++terms_ == 1) {
        first_term_ = signal;
        first_term_at_ = rt_.now();
        if (state_ != WorkerState::kDraining) begin_shutdown();
      } else {
        using SecondTerm = ShutdownBehaviour::SecondTerm;
        SecondTerm second = b.second_term;
        if (second == SecondTerm::kIntEscalates) {
          second = signal == Signal::kInt ? SecondTerm::kDeadline : SecondTerm::kIgnore;
        }
        if (rt_.now() - first_term_at_ < b.second_term_quiet_for || second == SecondTerm::kIgnore) {
          --terms_;  // ignored, as if it never came
        } else if (second == SecondTerm::kDefaultAction) {
          return false;
        } else if (second == SecondTerm::kForceStop ||
                   (second == SecondTerm::kDeadline && deadline_passed_)) {
          force_stop();
        } else if (second == SecondTerm::kDeadline && state_ == WorkerState::kDraining) {
          on_deadline();
        }
      }
      return true;
    case Signal::kTstp:
      if (!b.handles_tstp) return false;
      if (state_ == WorkerState::kRunning) enter_quiet();
      return true;
    case Signal::kCont:
      if (!b.handles_tstp) return false;
      if (state_ == WorkerState::kQuiet) {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
          if (!busy_[i]) idle_since_[i] = rt_.now();  // its processor fetches again
        }
        set_state(WorkerState::kRunning);
        send_heartbeat(Directive::kRunning);
        fill_slots();
      }
      return true;
    case Signal::kKill:
    case Signal::kQuit:
      return false;
  }
  return false;
}

void WorkerCore::on_directive(Directive directive) {
  if (directive == Directive::kQuiet && state_ == WorkerState::kRunning) {
    enter_quiet();
  } else if (directive == Directive::kTerminate &&
             (state_ == WorkerState::kRunning || state_ == WorkerState::kQuiet)) {
    begin_shutdown();
  }
}

namespace {
// When a fetch of timeout t, fetch after fetch since `since`, has the one in progress return
// (now, when one just returned).
Time fetch_returns(Time since, Time now, Duration t) {
  return since + (now - since + t - 1) / t * t;
}
}  // namespace

void WorkerCore::stop_idle_fetches() {
  const ShutdownBehaviour& b = config_.shutdown;
  const bool late = b.late_fetch != ShutdownBehaviour::LateFetch::kNone;
  const Time now = rt_.now();
  idle_release_ = now;
  late_fetches_.clear();
  if (const Duration t = b.idle_fetch_timeout; t > 0) {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (busy_[i]) continue;
      const Time returns = fetch_returns(idle_since_[i], now, t);
      idle_release_ = std::max(idle_release_, returns);
      if (late && returns > now) late_fetches_.push_back(returns);
    }
  }
  if (const Duration t = b.consumer_fetch_timeout; t > 0 && late && waiting_) {
    if (const Time returns = fetch_returns(waiting_since_, now, t); returns > now) {
      late_fetches_.push_back(returns);
    }
  }
  std::sort(late_fetches_.begin(), late_fetches_.end());
}

void WorkerCore::enter_quiet() {
  stop_idle_fetches();
  rt_.cancel(poll_);
  set_state(WorkerState::kQuiet);
  send_heartbeat(Directive::kQuiet);
}

void WorkerCore::begin_shutdown() {
  const ShutdownBehaviour& b = config_.shutdown;
  rt_.cancel(poll_);
  const bool was_running = state_ == WorkerState::kRunning;
  if (was_running) stop_idle_fetches();  // from quiet: they stopped when it went quiet
  set_state(WorkerState::kDraining);
  drain_start_ = rt_.now();
  if (config_.grace_period != kNever) {
    grace_ = rt_.schedule(rt_.now() + b.action_delay(config_.grace_period), Priority::kTimer, this,
                          kGrace);
  }
  if (b.cancel_after != kNever) {
    cancel_ = rt_.schedule(rt_.now() + b.cancel_after, Priority::kTimer, this, kCancel);
  }
  if (!b.heartbeats_while_draining) {
    rt_.cancel(heartbeat_);
  } else if (was_running) {
    send_heartbeat(Directive::kQuiet);
  }
  if (state_ != WorkerState::kDraining) return;  // a reply may have ended us
  if (b.logs_remaining) port_.log_remaining(active_);
  if (active_ == 0) {
    drain_done();
    return;
  }
  if (b.logs_remaining) {
    remaining_ =
        rt_.schedule(rt_.now() + kRemainingLogInterval, Priority::kTimer, this, kRemaining);
  }
}

void WorkerCore::drain_done() {
  const ShutdownBehaviour& b = config_.shutdown;
  Time end = std::max(rt_.now(), idle_release_);
  if (const Duration poll = b.drain_poll; poll > 0) {
    const Duration since = std::max<Duration>(end - drain_start_, b.drain_looks_at_start ? 0 : 1);
    end = drain_start_ + (since + poll - 1) / poll * poll;
  }
  end += b.drain_linger;
  if (end <= rt_.now()) {
    finish_shutdown();
  } else if (!finish_.pending()) {
    finish_ = rt_.schedule(end, Priority::kTimer, this, kFinish);
  }
}

void WorkerCore::finish_shutdown() {
  stop_timers();
  release_reserve();
  if (config_.shutdown.heartbeats_while_draining) send_heartbeat(Directive::kTerminate);
  if (config_.shutdown.deregisters) port_.deregister();
  set_state(WorkerState::kStopped);
  const bool self_kill = config_.shutdown.exits_by_signal && terms_ > 0;
  port_.exit(self_kill ? 128 + number(first_term_) : 0, Outcome::kAbandoned);
}

void WorkerCore::force_stop() {
  stop_timers();
  release_reserve();
  set_state(WorkerState::kStopped);
  port_.exit(1, Outcome::kAbandoned);
}

void WorkerCore::cancel_all() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (busy_[i]) port_.cancel_job(static_cast<int>(i));
  }
}

void WorkerCore::on_deadline() {
  using AtDeadline = ShutdownBehaviour::AtDeadline;
  const ShutdownBehaviour& b = config_.shutdown;
  rt_.cancel(grace_);
  rt_.cancel(finish_);
  deadline_passed_ = true;
  switch (b.at_deadline) {
    case AtDeadline::kFail:
    case AtDeadline::kRequeue: {
      for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (!busy_[i]) continue;
        free_slot(i);
        if (b.at_deadline == AtDeadline::kFail) {
          port_.fail(static_cast<int>(i), slots_[i], b.deadline_error, true);
        } else {
          port_.requeue(static_cast<int>(i), slots_[i]);
        }
      }
      // With a lead, the process exits when the grace ends (a second TERM has no deadline
      // action left to bring forward: it exits now). A grace of kNever has no end: the sum
      // is not taken, it would overflow.
      if (b.deadline_lead > 0 && config_.grace_period != kNever &&
          drain_start_ + config_.grace_period > rt_.now()) {
        finish_ =
            rt_.schedule(drain_start_ + config_.grace_period, Priority::kTimer, this, kFinish);
      } else {
        finish_shutdown();
      }
      break;
    }
    case AtDeadline::kLeave:
      stop_timers();
      release_reserve();
      if (b.leave_deregisters) port_.deregister();
      set_state(WorkerState::kStopped);
      port_.exit(0, Outcome::kKilled);
      break;
    case AtDeadline::kCancelAndWait:
      cancel_all();  // cooperative bodies return and are FAILed; the last one ends the drain
      break;
  }
}

void WorkerCore::on_killed() {
  stop_timers();
  reserve_.clear();  // held by the dead process: the backend's recovery brings them back
  state_ = WorkerState::kStopped;
}

void WorkerCore::stop_timers() {
  rt_.cancel(heartbeat_);
  rt_.cancel(poll_);
  rt_.cancel(grace_);
  rt_.cancel(remaining_);
  rt_.cancel(cancel_);
  rt_.cancel(finish_);
  for (TimerId& t : expiry_) rt_.cancel(t);
}

void WorkerCore::on_timer(std::uint32_t tag, std::uint64_t arg) {
  switch (static_cast<Tag>(tag)) {
    case kHeartbeat:
      heartbeat_ =
          rt_.schedule(rt_.now() + config_.heartbeat_interval, Priority::kTimer, this, kHeartbeat);
      send_heartbeat(reported_state());
      break;
    case kPoll:
      poll_ = TimerId{};
      fill_slots();
      break;
    case kGrace:
      grace_ = TimerId{};
      on_deadline();
      break;
    case kCancel:
      cancel_ = TimerId{};
      cancel_all();
      break;
    case kFinish:
      finish_ = TimerId{};
      finish_shutdown();
      break;
    case kRemaining:
      remaining_ =
          rt_.schedule(rt_.now() + kRemainingLogInterval, Priority::kTimer, this, kRemaining);
      port_.log_remaining(active_);
      break;
    case kExpiry:
      on_lease_expiry(static_cast<std::size_t>(arg));
      break;
  }
}

}  // namespace drainsim
