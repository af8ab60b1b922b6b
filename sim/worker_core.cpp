#include "worker_core.h"

namespace drainsim {

namespace {
constexpr Duration kRemainingLogInterval = 5 * kSecond;
}

const char* to_string(WorkerState s) {
  switch (s) {
    case WorkerState::kRunning:
      return "running";
    case WorkerState::kQuiet:
      return "quiet";
    case WorkerState::kDraining:
      return "draining";
    case WorkerState::kStopped:
      return "stopped";
    case WorkerState::kStarting:
      return "starting";
  }
  return "?";
}

WorkerCore::WorkerCore(Runtime& runtime, WorkerPort& port, const WorkerConfig& config)
    : rt_(runtime),
      port_(port),
      config_(config),
      slots_(static_cast<std::size_t>(config.concurrency)),
      busy_(static_cast<std::size_t>(config.concurrency), false) {
  scratch_.reserve(slots_.size());
}

const Lease* WorkerCore::lease(int slot) const { return busy_[slot] ? &slots_[slot] : nullptr; }

void WorkerCore::start() {
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
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (busy_[i]) scratch_.push_back(slots_[i]);
  }
  port_.heartbeat(state, scratch_);
}

void WorkerCore::fill_slots() {
  const int free = concurrency() - active_;
  if (state_ != WorkerState::kRunning || free <= 0 || fetching_) return;
  fetching_ = true;
  port_.fetch(free);
}

void WorkerCore::on_fetched(std::span<const Lease> leases) {
  fetching_ = false;
  if (state_ == WorkerState::kStopped) return;  // a late reply: the process has exited
  std::size_t slot = 0;
  for (const Lease& lease : leases) {
    while (busy_[slot]) ++slot;
    slots_[slot] = lease;
    busy_[slot] = true;
    ++active_;
    port_.start_job(static_cast<int>(slot), lease);
  }
  if (state_ == WorkerState::kRunning && active_ < concurrency()) {
    port_.wait_for_jobs();
    if (!poll_.pending()) {
      poll_ = rt_.schedule(rt_.now() + config_.poll_interval, Priority::kTimer, this, kPoll);
    }
  }
}

void WorkerCore::on_jobs_available() { fill_slots(); }

void WorkerCore::on_job_finished(int slot, JobResult result) {
  if (!busy_[slot] || state_ == WorkerState::kStopped) return;
  const Lease lease = slots_[slot];
  busy_[slot] = false;
  --active_;
  switch (result) {
    case JobResult::kSucceeded:
      port_.ack(slot, lease);
      break;
    case JobResult::kFailed:
      port_.fail(slot, lease, ErrorKind::kHandler, true);
      break;
    case JobResult::kCancelled:
      port_.fail(slot, lease, ErrorKind::kShutdown, true);
      break;
  }
  if (state_ == WorkerState::kDraining) {
    if (active_ == 0) finish_shutdown();
    return;
  }
  fill_slots();
}

bool WorkerCore::on_signal(Signal signal) {
  switch (signal) {
    case Signal::kTerm:
    case Signal::kInt:
      if (state_ == WorkerState::kStopped) return true;
      if (term_received_) {
        force_stop();  // a second TERM/INT (a drain begun by a directive does not count)
      } else {
        term_received_ = true;
        if (state_ != WorkerState::kDraining) begin_shutdown();
      }
      return true;
    case Signal::kTstp:
      if (state_ == WorkerState::kRunning) enter_quiet();
      return true;
    case Signal::kCont:
      if (state_ == WorkerState::kQuiet) {
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

void WorkerCore::enter_quiet() {
  rt_.cancel(poll_);
  set_state(WorkerState::kQuiet);
  send_heartbeat(Directive::kQuiet);
}

void WorkerCore::begin_shutdown() {
  rt_.cancel(poll_);
  const bool was_running = state_ == WorkerState::kRunning;
  set_state(WorkerState::kDraining);
  grace_ = rt_.schedule(rt_.now() + config_.grace_period, Priority::kTimer, this, kGrace);
  if (was_running) send_heartbeat(Directive::kQuiet);
  if (state_ != WorkerState::kDraining) return;  // a reply may have ended us
  port_.log_remaining(active_);
  if (active_ == 0) {
    finish_shutdown();
    return;
  }
  remaining_ = rt_.schedule(rt_.now() + kRemainingLogInterval, Priority::kTimer, this, kRemaining);
}

void WorkerCore::finish_shutdown() {
  stop_timers();
  send_heartbeat(Directive::kTerminate);
  port_.deregister();
  set_state(WorkerState::kStopped);
  port_.exit(0);
}

void WorkerCore::force_stop() {
  stop_timers();
  set_state(WorkerState::kStopped);
  port_.exit(1);
}

void WorkerCore::on_killed() {
  stop_timers();
  state_ = WorkerState::kStopped;
}

void WorkerCore::stop_timers() {
  rt_.cancel(heartbeat_);
  rt_.cancel(poll_);
  rt_.cancel(grace_);
  rt_.cancel(remaining_);
}

void WorkerCore::on_timer(std::uint32_t tag, std::uint64_t /*arg*/) {
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
      for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (!busy_[i]) continue;
        busy_[i] = false;
        --active_;
        port_.fail(static_cast<int>(i), slots_[i], ErrorKind::kShutdown, true);
      }
      finish_shutdown();
      break;
    case kRemaining:
      remaining_ =
          rt_.schedule(rt_.now() + kRemainingLogInterval, Priority::kTimer, this, kRemaining);
      port_.log_remaining(active_);
      break;
  }
}

}  // namespace drainsim
