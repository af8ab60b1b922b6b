#include "model/platform.h"

#include <algorithm>

#include <fmt/format.h>

namespace drainsim {

Platform::Platform(Runtime& runtime, const Scenario& scenario, Backend& backend, Recorder& recorder,
                   ProcessFactory processes)
    : rt_(runtime),
      scenario_(scenario),
      backend_(backend),
      recorder_(recorder),
      factory_(std::move(processes)),
      cordoned_(static_cast<std::size_t>(std::max(1, scenario.platform.nodes)), false),
      replicas_(scenario.platform.replicas) {}

Platform::~Platform() = default;

bool Platform::docker() const { return scenario_.platform.kind == PlatformConfig::Kind::kDocker; }

void Platform::start() {
  for (int i = 0; i < replicas_; ++i) create_pod(true);
}

int Platform::next_node() {
  const int nodes = static_cast<int>(cordoned_.size());
  for (int tries = 0; tries < nodes; ++tries) {
    const int node = node_cursor_++ % nodes;
    if (!cordoned_[node]) return node;
  }
  return -1;  // every node cordoned: the pod stays pending
}

int Platform::create_pod(bool ready_now) {
  const int id = static_cast<int>(pods_.size());
  pods_.emplace_back();
  PodRecord rec;
  rec.id = id;
  rec.node = next_node();
  rec.generation = generation_;
  rec.created = rt_.now();
  records_.push_back(rec);
  if (rec.node < 0) {
    recorder_.warning("pod_unschedulable",
                      fmt::format("at {}: every node is cordoned; pod-{} stays Pending",
                                  format_seconds(to_seconds(rt_.now())), id));
  }
  if (!ready_now) refresh(id);
  if (ready_now) {
    start_process(id);
  } else if (rec.node >= 0) {
    pods_[id].start_timer = rt_.schedule(rt_.now() + scenario_.platform.pod_start_delay,
                                         Priority::kTimer, this, kStarted, id);
  }
  return id;
}

void Platform::start_process(int pod) {
  Pod& p = pods_[pod];
  p.phase = Phase::kRunning;
  p.kill_reason = KillReason::kNone;
  recorder_.pod_cause(pod, rt_.now(), kNoCause);
  process_objects_.push_back(factory_(pod, *this));
  p.process = process_objects_.back().get();
  p.process_index = static_cast<int>(process_records_.size());
  records_[pod].processes.push_back(p.process_index);
  ProcessRecord rec;
  rec.pod = pod;
  rec.started = rt_.now();
  process_records_.push_back(rec);
  p.process->start();
  process_records_[p.process_index].worker = p.process->worker_id();
  refresh(pod);
}

void Platform::refresh(int pod) {
  Pod& p = pods_[pod];
  const bool was_ready = p.ready;
  PodState shown = PodState::kStarting;
  p.ready = false;
  switch (p.phase) {
    case Phase::kStarting:
      shown = PodState::kStarting;
      break;
    case Phase::kCrashed:
      shown = PodState::kCrashed;
      break;
    case Phase::kGone:
      shown = PodState::kGone;
      break;
    case Phase::kRunning:
      switch (p.process->state()) {
        case WorkerState::kRunning:
          shown = p.deleting ? PodState::kTerminating : PodState::kReady;
          p.ready = !p.deleting;
          break;
        case WorkerState::kQuiet:
          shown = PodState::kQuiet;
          break;
        case WorkerState::kDraining:
          shown = PodState::kDraining;
          break;
        case WorkerState::kStopped:
          shown = p.shown;
          break;  // exiting: the end follows
        case WorkerState::kStarting:
          shown = p.deleting ? PodState::kTerminating : PodState::kStarting;
          break;
      }
      break;
  }
  if (p.ready && records_[pod].first_ready < 0) records_[pod].first_ready = rt_.now();
  if (shown != p.shown) {
    p.shown = shown;
    recorder_.pod_state(rt_.now(), pod, shown);
  }
  if (p.ready != was_ready || p.phase == Phase::kGone) reconcile_soon();
}

void Platform::on_worker_state(int pod, WorkerState /*state*/) {
  const Pod& p = pods_[pod];
  // A real worker registers some time after its process starts.
  if (p.process) process_records_[p.process_index].worker = p.process->worker_id();
  refresh(pod);
}

void Platform::mark_termination(int pod) {
  Pod& p = pods_[pod];
  if (p.process_index < 0 || p.phase != Phase::kRunning) return;
  ProcessRecord& rec = process_records_[p.process_index];
  if (rec.termination < 0) rec.termination = rt_.now();
}

bool Platform::reaches_worker(Signal signal, bool to_pid1) const {
  // A shell as PID 1 neither dies of a signal nor forwards it; only SIGKILL gets through.
  return !(to_pid1 && scenario_.platform.pid1_shell && signal != Signal::kKill);
}

void Platform::send(int pod, Signal signal, const char* source, bool to_pid1) {
  Pod& p = pods_[pod];
  if (p.phase != Phase::kRunning) return;
  recorder_.signal(rt_.now(), pod, signal, reaches_worker(signal, to_pid1), source);
  p.process->deliver(signal, to_pid1 ? SignalTarget::kPid1 : SignalTarget::kWorker);
}

void Platform::sigkill(int pod, KillReason reason, const char* source) {
  Pod& p = pods_[pod];
  if (p.phase != Phase::kRunning) return;
  p.kill_reason = reason;
  send(pod, Signal::kKill, source, true);
}

void Platform::delete_pod(int pod, CauseId cause) {
  Pod& p = pods_[pod];
  if (p.deleting || p.phase == Phase::kGone) return;
  p.deleting = true;
  recorder_.pod_cause(pod, rt_.now(), cause);
  records_[pod].deleted = rt_.now();
  if (p.phase != Phase::kRunning) {
    // Nothing runs yet (starting, or waiting to restart): the pod goes at once.
    rt_.cancel(p.start_timer);
    p.phase = Phase::kGone;
    records_[pod].gone = rt_.now();
    refresh(pod);
    return;
  }
  const PlatformConfig& cfg = scenario_.platform;
  const Duration grace = cfg.grace_period();
  p.deadline = rt_.now() + grace;
  p.deadline_timer = rt_.schedule(p.deadline, Priority::kTimer, this, kDeadline, pod);
  mark_termination(pod);
  const PreStop& pre = cfg.pre_stop;
  switch (docker() ? PreStop::Kind::kNone : pre.kind) {
    case PreStop::Kind::kNone:
      send(pod, Signal::kTerm, "deletion", true);
      break;
    case PreStop::Kind::kQuietThenSleep:
      send(pod, Signal::kTstp, "prestop", true);  // `kill -TSTP 1`: aimed at PID 1
      [[fallthrough]];
    case PreStop::Kind::kSleep:
      p.prestop_running = true;
      p.prestop_timer =
          rt_.schedule(rt_.now() + pre.duration, Priority::kTimer, this, kPreStopDone, pod);
      break;
    case PreStop::Kind::kQuietThenWait:
      // The Sidekiq seed script signals the worker's own pid, found with ps.
      send(pod, Signal::kTstp, "prestop", false);
      p.prestop_running = true;
      p.prestop_timer =
          rt_.schedule(rt_.now() + pre.poll, Priority::kTimer, this, kPreStopPoll, pod);
      p.prestop_timeout =
          rt_.schedule(rt_.now() + pre.timeout, Priority::kTimer, this, kPreStopTimeout, pod);
      break;
  }
  refresh(pod);
}

void Platform::finish_prestop(int pod) {
  Pod& p = pods_[pod];
  p.prestop_running = false;
  rt_.cancel(p.prestop_timer);
  rt_.cancel(p.prestop_timeout);
  send(pod, Signal::kTerm, "deletion", true);
}

void Platform::on_process_end(int pod, ProcessEnd how, int code) {
  Pod& p = pods_[pod];
  ProcessRecord& rec = process_records_[p.process_index];
  rec.ended = rt_.now();
  rec.code = code;
  switch (how) {
    case ProcessEnd::kExited:
      rec.exit = code == 0 ? ExitKind::kClean : ExitKind::kExitedWithError;
      break;
    case ProcessEnd::kSignalled:
      rec.exit = ExitKind::kDiedOnTerm;
      break;
    case ProcessEnd::kKilled:
      rec.exit = p.kill_reason == KillReason::kDeadline ? ExitKind::kKilledAtDeadline
                 : p.kill_reason == KillReason::kOom    ? ExitKind::kOomKilled
                                                        : ExitKind::kKilledBySignal;
      break;
  }
  p.process = nullptr;
  rt_.cancel(p.prestop_timer);
  rt_.cancel(p.prestop_timeout);
  rt_.cancel(p.deadline_timer);
  p.prestop_running = false;
  if (p.deleting) {
    p.phase = Phase::kGone;
    records_[pod].gone = rt_.now();
  } else {
    // restartPolicy Always: the container comes back after restart_delay.
    p.phase = Phase::kCrashed;
    p.start_timer = rt_.schedule(rt_.now() + scenario_.platform.restart_delay, Priority::kTimer,
                                 this, kRestart, pod);
  }
  refresh(pod);
}

void Platform::on_timer(std::uint32_t tag, std::uint64_t arg) {
  const int pod = static_cast<int>(arg);
  switch (static_cast<Tag>(tag)) {
    case kStarted:
      pods_[pod].start_timer = TimerId{};
      start_process(pod);
      break;
    case kRestart:
      pods_[pod].phase = Phase::kStarting;
      pods_[pod].start_timer = rt_.schedule(rt_.now() + scenario_.platform.pod_start_delay,
                                            Priority::kTimer, this, kStarted, pod);
      refresh(pod);
      break;
    case kPreStopDone:
      pods_[pod].prestop_timer = TimerId{};
      finish_prestop(pod);
      break;
    case kPreStopPoll: {
      Pod& p = pods_[pod];
      p.prestop_timer = TimerId{};
      if (p.phase == Phase::kRunning && p.process->active_jobs() == 0) {
        finish_prestop(pod);
      } else {
        p.prestop_timer = rt_.schedule(rt_.now() + scenario_.platform.pre_stop.poll,
                                       Priority::kTimer, this, kPreStopPoll, pod);
      }
      break;
    }
    case kPreStopTimeout:
      pods_[pod].prestop_timeout = TimerId{};
      sigkill(pod, KillReason::kSignal, "prestop");  // the script's `kill -9`
      break;
    case kDeadline: {
      Pod& p = pods_[pod];
      p.deadline_timer = TimerId{};
      if (p.prestop_running) {
        p.prestop_running = false;
        rt_.cancel(p.prestop_timer);
        rt_.cancel(p.prestop_timeout);
        send(pod, Signal::kTerm, "deadline", true);
        p.deadline_timer = rt_.schedule(rt_.now() + kPreStopExtension, Priority::kTimer, this,
                                        kExtensionKill, pod);
      } else {
        sigkill(pod, KillReason::kDeadline, "deadline");
      }
      break;
    }
    case kExtensionKill:
      pods_[pod].deadline_timer = TimerId{};
      sigkill(pod, KillReason::kDeadline, "deadline");
      break;
    case kReconcile:
      reconcile_ = TimerId{};
      reconcile();
      break;
  }
}

bool Platform::pod_exists(int pod, std::size_t event_index, const char* what) {
  if (pod >= 0 && pod < static_cast<int>(pods_.size()) && pods_[pod].phase == Phase::kRunning) {
    return true;
  }
  recorder_.warning("event_skipped",
                    fmt::format("events[{}] ({}) at {}: pod-{} has no running process; skipped",
                                event_index, what, format_seconds(to_seconds(rt_.now())), pod));
  return false;
}

void Platform::apply(const ScenarioEvent& e, std::size_t index) {
  using K = ScenarioEvent::Kind;
  switch (e.kind) {
    case K::kRollingRestart: {
      if (rollout_) deploys_.back().superseded = true;
      ++generation_;
      rollout_ = true;
      if (docker()) {
        surge_ = 0;  // docker replaces containers one at a time: stop, then start
        unavailable_ = 1;
      } else {
        surge_ = e.max_surge.resolve(replicas_, true);
        unavailable_ = e.max_unavailable.resolve(replicas_, false);
        if (surge_ == 0 && unavailable_ == 0) unavailable_ = 1;
      }
      deploys_.push_back(DeployRecord{rt_.now(), -1, false});
      rollout_cause_ = event_cause(index);
      reconcile_soon();
      break;
    }
    case K::kOomKill: {
      std::vector<int> targets;
      if (e.pod >= 0) {
        if (pod_exists(e.pod, index, "oom_kill")) targets.push_back(e.pod);
      } else {
        std::vector<int> ready;
        for (int i = 0; i < static_cast<int>(pods_.size()); ++i) {
          if (pods_[i].ready) ready.push_back(i);
        }
        Rng& rng = rt_.rng(Stream::kPlatform);
        for (int n = 0; n < e.count && !ready.empty(); ++n) {
          const auto pick = static_cast<std::size_t>(rng.below(ready.size()));
          targets.push_back(ready[pick]);
          ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
        }
        if (static_cast<int>(targets.size()) < e.count) {
          recorder_.warning(
              "event_partial",
              fmt::format("events[{}] (oom_kill) at {}: {} pods asked, {} ready", index,
                          format_seconds(to_seconds(rt_.now())), e.count, targets.size()));
        }
      }
      for (int pod : targets) {
        if (pods_[pod].phase == Phase::kRunning)
          recorder_.pod_cause(pod, rt_.now(), event_cause(index));
        sigkill(pod, KillReason::kOom, "oom");
      }
      break;
    }
    case K::kScaleDown:
    case K::kScaleUp:
      if (e.kind == K::kScaleDown) scale_cause_ = event_cause(index);
      replicas_ = e.replicas;
      reconcile_soon();
      break;
    case K::kSignal:
      if (!pod_exists(e.pod, index, "signal")) break;
      recorder_.pod_cause(e.pod, rt_.now(), event_cause(index));
      // A drain starts only if the TERM/INT gets to the worker (a deletion's clock, by
      // contrast, runs whatever PID 1 does with its TERM).
      if ((e.signal == Signal::kTerm || e.signal == Signal::kInt) &&
          reaches_worker(e.signal, true)) {
        mark_termination(e.pod);
      }
      if (e.signal == Signal::kKill) {
        sigkill(e.pod, KillReason::kSignal, "event");
      } else {
        send(e.pod, e.signal, "event", true);
      }
      break;
    case K::kNodeDrain:
      if (e.node >= 0 && e.node < static_cast<int>(cordoned_.size())) cordoned_[e.node] = true;
      for (int i = 0; i < static_cast<int>(pods_.size()); ++i) {
        if (records_[i].node == e.node && !pods_[i].deleting) delete_pod(i, event_cause(index));
      }
      reconcile_soon();
      break;
    case K::kDirective:
      if (!pod_exists(e.pod, index, "directive")) break;
      if (pods_[e.pod].process->worker_id() == kNoWorker) {
        recorder_.warning("event_skipped",
                          fmt::format("events[{}] (directive) at {}: pod-{}'s worker has not "
                                      "registered yet; skipped",
                                      index, format_seconds(to_seconds(rt_.now())), e.pod));
        break;
      }
      backend_.set_directive(pods_[e.pod].process->worker_id(), e.state);
      break;
    case K::kOomKillChild:
      if (!pod_exists(e.pod, index, "oom_kill_child")) break;
      recorder_.pod_cause(e.pod, rt_.now(), event_cause(index));
      // The kernel's SIGKILL reaches one pool child, not the worker (source "oom_child").
      recorder_.signal(rt_.now(), e.pod, Signal::kKill, true, "oom_child");
      pods_[e.pod].process->kill_child();
      break;
    case K::kDeletePod:
      if (e.pod < 0 || e.pod >= static_cast<int>(pods_.size()) || pods_[e.pod].deleting ||
          pods_[e.pod].phase == Phase::kGone) {
        recorder_.warning("event_skipped",
                          fmt::format("events[{}] (delete_pod) at {}: pod-{} does not exist; "
                                      "skipped",
                                      index, format_seconds(to_seconds(rt_.now())), e.pod));
        break;
      }
      delete_pod(e.pod, event_cause(index));
      reconcile_soon();
      break;
  }
}

void Platform::reconcile_soon() {
  if (!reconcile_.pending()) {
    reconcile_ = rt_.schedule(rt_.now(), Priority::kTimer, this, kReconcile);
  }
}

void Platform::delete_ranked(std::vector<int> candidates, int count, CauseId cause) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    if (pods_[a].ready != pods_[b].ready) return !pods_[a].ready;
    return a > b;  // pod ids grow with creation: newest first
  });
  for (int i = 0; i < count && i < static_cast<int>(candidates.size()); ++i) {
    delete_pod(candidates[i], cause);
  }
}

void Platform::reconcile() {
  auto live = [&](int i) { return !pods_[i].deleting && pods_[i].phase != Phase::kGone; };
  const int n = static_cast<int>(pods_.size());
  std::vector<int> old_pods, new_pods;
  int terminating = 0;
  for (int i = 0; i < n; ++i) {
    if (live(i)) {
      (records_[i].generation < generation_ ? old_pods : new_pods).push_back(i);
    } else if (pods_[i].phase != Phase::kGone) {
      ++terminating;
    }
  }
  if (!rollout_) {
    const int have = static_cast<int>(new_pods.size());
    for (int i = have; i < replicas_; ++i) create_pod(false);
    if (have > replicas_) delete_ranked(new_pods, have - replicas_, scale_cause_);
    return;
  }
  // Rolling update (Kubernetes' rules; Docker counts terminating containers so it stops
  // the old one before starting the new).
  auto count_ready = [&](const std::vector<int>& v) {
    return static_cast<int>(
        std::count_if(v.begin(), v.end(), [&](int i) { return pods_[i].ready; }));
  };
  int total = static_cast<int>(old_pods.size() + new_pods.size()) + (docker() ? terminating : 0);
  const int add =
      std::min(replicas_ + surge_ - total, replicas_ - static_cast<int>(new_pods.size()));
  for (int i = 0; i < add; ++i) {
    new_pods.push_back(create_pod(false));
    ++total;
  }
  if (static_cast<int>(new_pods.size()) > replicas_) {
    delete_ranked(new_pods, static_cast<int>(new_pods.size()) - replicas_,
                  scale_cause_ != kNoCause ? scale_cause_ : rollout_cause_);
  }
  const int min_available = replicas_ - unavailable_;
  const int new_unavailable = static_cast<int>(new_pods.size()) - count_ready(new_pods);
  int max_scaled_down = total - min_available - new_unavailable;
  if (max_scaled_down > 0 && !old_pods.empty()) {
    // Old pods that are not ready go first; then ready ones while availability allows.
    std::vector<int> unhealthy;
    for (int i : old_pods) {
      if (!pods_[i].ready) unhealthy.push_back(i);
    }
    const int cleanup = std::min(max_scaled_down, static_cast<int>(unhealthy.size()));
    delete_ranked(unhealthy, cleanup, rollout_cause_);
    std::vector<int> remaining;
    for (int i : old_pods) {
      if (live(i)) remaining.push_back(i);
    }
    const int available = count_ready(remaining) + count_ready(new_pods);
    const int scale_down = std::min(available - min_available, max_scaled_down - cleanup);
    if (scale_down > 0) delete_ranked(remaining, scale_down, rollout_cause_);
  }
  // Done when every old pod is gone and the new ones are all ready.
  bool old_left = false;
  for (int i = 0; i < n; ++i) {
    if (records_[i].generation < generation_ && pods_[i].phase != Phase::kGone) old_left = true;
  }
  if (!old_left && static_cast<int>(new_pods.size()) == replicas_ &&
      count_ready(new_pods) == replicas_) {
    rollout_ = false;
    deploys_.back().end = rt_.now();
  }
}

bool Platform::busy() const {
  if (rollout_ || reconcile_.pending()) return true;
  for (const Pod& p : pods_) {
    if (p.phase == Phase::kStarting || p.phase == Phase::kCrashed) return true;
    if (p.deleting && p.phase != Phase::kGone) return true;
    // A worker draining or on its way out (a real process exits some time after its
    // worker stopped).
    if (p.phase == Phase::kRunning && p.process != nullptr &&
        (p.process->state() == WorkerState::kDraining ||
         p.process->state() == WorkerState::kStopped)) {
      return true;
    }
  }
  return false;
}

}  // namespace drainsim
