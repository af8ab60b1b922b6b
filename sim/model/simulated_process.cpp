#include "model/simulated_process.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace drainsim {

SimulatedProcess::SimulatedProcess(Runtime& runtime, Backend& backend, Recorder& recorder,
                                   ProcessObserver& observer, const WorkerConfig& worker,
                                   const WorkloadConfig& workload, int pod, JobBody bodies,
                                   Pid1 pid1, Hops hops)
    : rt_(runtime),
      backend_(backend),
      recorder_(recorder),
      observer_(observer),
      workload_(workload),
      core_(runtime, *this, worker),
      runner_(make_job_runner(bodies, runtime, this, worker.concurrency)),
      bodies_(static_cast<std::size_t>(worker.concurrency)),
      fetch_latency_(worker.fetch_latency),
      instant_fetch_(worker.fetch_latency.kind == DurationDistribution::Kind::kConstant &&
                     worker.fetch_latency.value == 0),
      pool_children_(worker.shutdown.child_lost != ShutdownBehaviour::ChildLost::kNone),
      fetch_reissue_(worker.shutdown.consumer_fetch_timeout),
      startup_(worker.startup),
      instant_start_(worker.startup.kind == DurationDistribution::Kind::kConstant &&
                     worker.startup.value == 0),
      pod_(pod),
      pid1_(pid1),
      paced_(runtime.time_scale() > 0),
      hops_(std::move(hops)) {
  for (const std::string& q : worker.queues) queues_.push_back(backend.queue(q));
  fetched_.reserve(bodies_.size());
}

void SimulatedProcess::start() {
  alive_ = true;
  if (instant_start_) {
    worker_id_ = backend_.register_worker(queues_, this, pod_);
    on_process([this] {
      core_.start();
      mirror();
    });
    return;
  }
  state_.store(WorkerState::kStarting, std::memory_order_release);
  on_process([this] {
    if (!alive_) return;
    started_ = rt_.schedule(rt_.now() + startup_.sample(rt_.rng(Stream::kStartup)),
                            Priority::kTimer, this, kStarted);
  });
}

void SimulatedProcess::run_worker() {
  on_models([this] {
    worker_id_ = backend_.register_worker(queues_, this, pod_);
    on_process([this] {
      if (!alive_) return;
      core_.start();
      mirror();
      on_models([this] { observer_.on_worker_state(pod_, WorkerState::kRunning); });
    });
  });
}

void SimulatedProcess::mirror() {
  // Release stores: a plain store on x86, where the default (sequentially consistent) one
  // is a locked exchange that stalls every event (bench/README.md, issue 19).
  state_.store(starting() ? WorkerState::kStarting : core_.state(), std::memory_order_release);
  active_.store(core_.active(), std::memory_order_release);
}

void SimulatedProcess::deliver(Signal signal, SignalTarget target) {
  on_process([this, signal, target] {
    deliver_here(signal, target);
    mirror();
  });
}

void SimulatedProcess::deliver_here(Signal signal, SignalTarget target) {
  if (!alive_) return;
  if (target == SignalTarget::kPid1 && pid1_ == Pid1::kShell && signal != Signal::kKill) return;
  if (signal == Signal::kKill) {
    kill();
    return;
  }
  if (!starting() && core_.on_signal(signal)) return;
  if (pid1_ == Pid1::kWorker) return;  // PID 1: no default action for an unhandled signal
  // No handler: TERM, INT and QUIT terminate; TSTP would stop the process and CONT
  // resume it, which only matters to profiles without handlers for them.
  if (signal == Signal::kTerm || signal == Signal::kInt || signal == Signal::kQuit) {
    core_.on_killed();
    end_all(Outcome::kKilled);
    die(ProcessEnd::kSignalled, 128 + number(signal));
  }
}

void SimulatedProcess::kill_child() {
  on_process([this] {
    if (!alive_ || !pool_children_) return;
    int victim = -1;
    for (int i = 0; i < static_cast<int>(bodies_.size()); ++i) {
      if (bodies_[i].running && (victim < 0 || bodies_[i].start < bodies_[victim].start)) {
        victim = i;
      }
    }
    if (victim < 0) return;  // an idle child: replaced, nothing lost
    Body& body = bodies_[victim];
    end_attempt(victim, Outcome::kKilled, periodic_saves(body, rt_.now() - body.start));
    core_.on_job_finished(victim, JobResult::kChildLost);
    mirror();
  });
}

void SimulatedProcess::kill() {
  if (!alive_) return;
  core_.on_killed();
  end_all(Outcome::kKilled);
  die(ProcessEnd::kKilled, 137);
}

void SimulatedProcess::die(ProcessEnd how, int code) {
  alive_ = false;
  rt_.cancel(started_);
  rt_.cancel(wake_);
  rt_.cancel(fetch_);
  mirror();
  on_models([this, how, code] {
    if (worker_id_ != kNoWorker) {
      backend_.process_ended(worker_id_);  // jobs held only in its memory die with it
      backend_.cancel_wait(worker_id_);    // its long-poll dies with it (or lingers a moment)
    }
    observer_.on_process_end(pod_, how, code);
  });
}

Duration SimulatedProcess::periodic_saves(const Body& body, Duration run) const {
  if (!workload_.checkpointing) return 0;
  const Duration remaining = body.lease.spec.work - body.lease.progress;
  return std::min(remaining, run / workload_.checkpoint_interval * workload_.checkpoint_interval);
}

Duration SimulatedProcess::graceful_saves(const Body& body, Duration run) const {
  if (!workload_.checkpointing) return 0;
  return std::min(run, body.lease.spec.work - body.lease.progress);
}

void SimulatedProcess::end_attempt(int slot, Outcome outcome, Duration saved, bool ended) {
  Body& body = bodies_[slot];
  if (!ended) runner_->abort(slot);
  body.running = false;
  body.saved = saved;
  record_end(body, slot, outcome, saved);
}

void SimulatedProcess::record_end(const Body& body, int slot, Outcome outcome, Duration saved) {
  AttemptRecord record;
  record.job = body.lease.id;
  record.attempt = body.lease.attempt;
  record.pod = pod_;
  record.worker = worker_id_;
  record.slot = slot;
  record.start = body.start;
  record.end = rt_.now();
  record.outcome = outcome;
  on_models_with([this](const Lease& lease, const AttemptRecord& r,
                        Duration s) { recorder_.attempt_ended(lease, r, s); },
                 body.lease, record, saved);
}

void SimulatedProcess::end_all(Outcome outcome) {
  for (Body& body : detached_) {
    if (!body.running) continue;
    rt_.cancel(body.detached_end);
    body.running = false;
    record_end(body, body.slot, outcome, 0);
  }
  end_slots(outcome);
}

void SimulatedProcess::end_slots(Outcome outcome) {
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    Body& body = bodies_[i];
    if (!body.running) continue;
    const Duration saved = periodic_saves(body, rt_.now() - body.start);
    if (saved > 0) {
      on_models([this, lease = body.lease, progress = body.lease.progress + saved] {
        backend_.checkpoint(lease, progress);
      });
    }
    end_attempt(static_cast<int>(i), outcome, saved);
  }
}

void SimulatedProcess::fetch(int count) {
  const Duration rtt = instant_fetch_ ? 0 : fetch_latency_.sample(rt_.rng(Stream::kNetwork));
  if (rtt == 0) {
    send_fetch(count);
  } else {
    fetch_ = rt_.schedule(rt_.now() + rtt, Priority::kTimer, this, kFetch,
                          static_cast<std::uint64_t>(count));
  }
}

void SimulatedProcess::send_fetch(int count) {
  // One fetch at a time (the core waits for its reply), so fetched_ passes from the
  // models' side to the process's without a copy.
  on_models([this, count] {
    fetched_.clear();
    backend_.fetch(worker_id_, count, fetched_);
    on_process([this] {
      core_.on_fetched(fetched_);
      mirror();
    });
  });
}

void SimulatedProcess::wait_for_jobs() {
  on_models([this] { backend_.wait_for_jobs(worker_id_, fetch_reissue_); });
}

void SimulatedProcess::on_jobs_available() {
  on_process([this] {
    if (alive_ && !wake_.pending()) wake_ = rt_.schedule(rt_.now(), Priority::kTimer, this, kWake);
  });
}

void SimulatedProcess::ack(int /*slot*/, const Lease& lease) {
  on_models_with(
      [this](const Lease& l, Time now) {
        const bool accepted = backend_.ack(worker_id_, l);
        record_report(now, l, ReportKind::kAck, ErrorKind::kHandler, accepted);
      },
      lease, rt_.now());
}

void SimulatedProcess::fail(int slot, const Lease& lease, ErrorKind error, bool retryable) {
  Body& body = bodies_[slot];
  if (body.running) {
    // Given up while its body still runs: interrupted. A graceful FAIL saves all progress.
    end_attempt(slot, Outcome::kInterrupted, graceful_saves(body, rt_.now() - body.start));
  }
  on_models(
      [this, lease, error, retryable, progress = lease.progress + body.saved, now = rt_.now()] {
        const bool accepted = backend_.fail(worker_id_, lease, error, retryable, progress);
        record_report(now, lease, ReportKind::kFail, error, accepted);
      });
}

void SimulatedProcess::requeue(int slot, const Lease& lease) {
  Body& body = bodies_[slot];
  if (body.running) {
    end_attempt(slot, Outcome::kInterrupted, graceful_saves(body, rt_.now() - body.start));
  }
  on_models([this, lease, progress = lease.progress + body.saved, now = rt_.now()] {
    backend_.checkpoint(lease, progress);
    backend_.requeue(worker_id_, lease, true);
    record_report(now, lease, ReportKind::kRequeue, ErrorKind::kHandler, true);
  });
}

void SimulatedProcess::record_report(Time now, const Lease& lease, ReportKind kind, ErrorKind error,
                                     bool accepted) {
  recorder_.report({now, pod_, worker_id_, lease.id, lease.attempt, kind, error, accepted});
}

void SimulatedProcess::heartbeat(Directive state, std::span<const Lease> active) {
  on_models(
      [this, state, leases = std::vector<Lease>(active.begin(), active.end()), now = rt_.now()] {
        recorder_.heartbeat(now, pod_, worker_id_, state);
        const Directive reply = backend_.heartbeat(worker_id_, state, leases);
        if (state == Directive::kTerminate) return;
        on_process([this, reply] {
          core_.on_directive(reply);
          mirror();
        });
      });
}

void SimulatedProcess::release(const Lease& lease) {
  on_models([this, lease] { backend_.release(worker_id_, lease); });
}

void SimulatedProcess::keep(const Lease& lease) {
  on_models([this, lease] { backend_.strand(worker_id_, lease); });
}

void SimulatedProcess::deregister() {
  // leave_deregisters: its slots' threads were killed before the goodbye. (A body that runs on
  // detached from its slot, pg-boss's past its expireIn, stays: it ends with the process.)
  end_slots(Outcome::kKilled);
  on_models([this] { backend_.deregister(worker_id_); });
}

void SimulatedProcess::start_job(int slot, const Lease& lease) {
  Body& body = bodies_[slot];
  body.lease = lease;
  body.start = rt_.now();
  body.running = true;
  body.cancelled = false;
  const double failure_rate = workload_.failure_rate_of(lease.spec.job_class);
  body.fails = failure_rate > 0 && rt_.rng(Stream::kJobBehaviour).bernoulli(failure_rate);
  on_models_with(
      [this](const Lease& l, Time start) {
        recorder_.attempt_started(l, start);
        backend_.started(worker_id_, l);
      },
      lease, body.start);
  const Duration remaining = std::max<Duration>(0, lease.spec.work - lease.progress);
  // A failing attempt fails somewhere in its run, uniformly.
  body.natural_end =
      body.start + (body.fails ? static_cast<Duration>(static_cast<double>(remaining) *
                                                       rt_.rng(Stream::kJobBehaviour).uniform())
                               : remaining);
  runner_->start(slot, ++body.generation, body.natural_end - body.start);
}

void SimulatedProcess::cancel_job(int slot) {
  Body& body = bodies_[slot];
  if (!body.running || body.cancelled || !body.lease.spec.cooperative) return;
  body.cancelled = true;
  runner_->cancel(slot, body.lease.spec.cancel_latency);
}

void SimulatedProcess::detach_job(int slot) {
  Body& body = bodies_[slot];
  if (!body.running) return;
  runner_->abort(slot);
  body.running = false;
  body.saved = periodic_saves(body, rt_.now() - body.start);  // what the fail() reports
  // The body runs on to its natural end, on a timer whatever the engine's bodies are.
  std::size_t index = 0;
  while (index < detached_.size() && detached_[index].running) ++index;
  if (index == detached_.size()) detached_.emplace_back();
  Body& d = detached_[index];
  d = body;
  d.running = true;
  d.slot = slot;
  d.detached_end = rt_.schedule(std::max(rt_.now(), body.natural_end), Priority::kTimer, this,
                                kDetachedEnd, index);
}

void SimulatedProcess::end_detached(std::size_t index) {
  Body& body = detached_[index];
  body.detached_end = TimerId{};
  if (!body.running) return;
  body.running = false;
  const Duration run = rt_.now() - body.start;
  record_end(body, body.slot, body.fails ? Outcome::kFailed : Outcome::kCompleted,
             body.fails ? periodic_saves(body, run) : 0);
}

void SimulatedProcess::state_changed(WorkerState state) {
  mirror();
  on_models([this, state, late = core_.late_fetches()] {
    if (state != WorkerState::kRunning) backend_.cancel_wait(worker_id_, late);
    observer_.on_worker_state(pod_, state);
  });
}

void SimulatedProcess::log_remaining(int active) {
  on_models(
      [this, now = rt_.now(), active] { recorder_.remaining(now, pod_, worker_id_, active); });
}

void SimulatedProcess::exit(int code, Outcome leftover) {
  end_all(leftover);  // still running at exit: nobody reported them
  if (code > 128) {   // it kills itself with signal code - 128: PID 1 has no default action
    if (pid1_ == Pid1::kWorker) {
      die(ProcessEnd::kExited, 0);
    } else {
      die(ProcessEnd::kSignalled, code);
    }
    return;
  }
  die(ProcessEnd::kExited, code);
}

void SimulatedProcess::on_timer(std::uint32_t tag, std::uint64_t arg) {
  switch (tag) {
    case JobRunner::kBodyEnded:
    case JobRunner::kBodyCancelled: {
      const int slot = static_cast<int>(arg & 0xffffffffu);
      Body& body = bodies_[slot];
      if (!body.running || body.generation != arg >> 32) break;  // a body given up on
      const Duration run = rt_.now() - body.start;
      if (paced_ && tag == JobRunner::kBodyEnded) {  // before the slot can take a new job
        rt_.body_ended_late(body.natural_end - body.start,
                            std::max<Duration>(0, rt_.now() - body.natural_end));
      }
      if (tag == JobRunner::kBodyCancelled) {
        end_attempt(slot, Outcome::kInterrupted, graceful_saves(body, run), true);
        core_.on_job_finished(slot, JobResult::kCancelled);
      } else if (body.fails) {
        end_attempt(slot, Outcome::kFailed, periodic_saves(body, run), true);
        core_.on_job_finished(slot, JobResult::kFailed);
      } else {
        end_attempt(slot, Outcome::kCompleted, 0, true);
        core_.on_job_finished(slot, JobResult::kSucceeded);
      }
      break;
    }
    case kWake:
      wake_ = TimerId{};
      core_.on_jobs_available();
      break;
    case kFetch:
      fetch_ = TimerId{};
      send_fetch(static_cast<int>(arg));
      break;
    case JobRunner::kThreadRefused:
      on_models([this, error = static_cast<int>(arg)] {
        recorder_.warning_once(
            "threads_refused",
            fmt::format("the OS refused job bodies their threads ({}; a limit on threads or "
                        "memory, ulimit -u or -v): those bodies ran as timers, as on the "
                        "virtual engine, so they loaded no CPU (--job-body spin) nor held a "
                        "thread; first on pod-{}",
                        std::strerror(error), pod_));
      });
      break;
    case kDetachedEnd:
      end_detached(static_cast<std::size_t>(arg));
      break;
    case kStarted:
      started_ = TimerId{};
      run_worker();
      return;  // its state is published once the worker runs
  }
  mirror();
}

}  // namespace drainsim
