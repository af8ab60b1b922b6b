#include "process/child_process_proxy.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>

#include <fmt/format.h>

#include "base/parse.h"
#include "model/sampler.h"
#include "profiles/profile.h"

namespace drainsim {

using nlohmann::json;

namespace {

enum Tag : std::uint32_t { kWaitTimeout };

const json& field(const json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end())
    throw RequestError{400, "invalid_request", fmt::format("'{}' is missing", name)};
  return *it;
}

std::string string_field(const json& body, const char* name) {
  const json& v = field(body, name);
  if (!v.is_string()) {
    throw RequestError{400, "invalid_request", fmt::format("'{}' must be a string", name)};
  }
  return v.get<std::string>();
}

std::int64_t int_field(const json& body, const char* name) {
  const json& v = field(body, name);
  if (!v.is_number_integer()) {
    throw RequestError{400, "invalid_request", fmt::format("'{}' must be an integer", name)};
  }
  return v.get<std::int64_t>();
}

JobId job_id(const json& body) {
  const std::string text = string_field(body, "job_id");
  const std::optional<JobId> id = parse_number<JobId>(text);
  if (!id) throw RequestError{404, "not_found", fmt::format("no job '{}'", text)};
  return *id;
}

Directive directive(const std::string& text) {
  if (const std::optional<Directive> d = parse_directive(text)) return *d;
  throw RequestError{400, "invalid_request",
                     "'state' must be \"running\", \"quiet\" or \"terminate\""};
}

std::string env_duration(double ms) { return fmt::format("{:.3f}ms", ms); }

}  // namespace

double ProxyContext::real_ms(Duration d) const {
  return static_cast<double>(d) / rt.time_scale() / 1000.0;
}

Duration ProxyContext::simulated(double ms) const {
  return static_cast<Duration>(ms * 1000.0 * rt.time_scale());
}

ChildProcessProxy::ChildProcessProxy(const ProxyContext& context, ProcessObserver& observer,
                                     int pod, std::string name)
    : context_(context), observer_(observer), pod_(pod), name_(std::move(name)) {}

void ChildProcessProxy::start() {
  const WorkerConfig& w = context_.scenario.worker;
  SpawnSpec spec = context_.program;
  if (context_.scenario.platform.pid1_shell) {
    spec.argv = pid1_shell_argv(context_.shell);
  }
  std::string queues;
  for (const std::string& q : w.queues) queues += (queues.empty() ? "" : ",") + q;
  spec.env.push_back("OJS_URL=" + context_.ojs_url);
  spec.env.push_back("OJS_WORKER_ID=" + name_);
  spec.env.push_back("OJS_QUEUES=" + queues);
  spec.env.push_back(fmt::format("OJS_CONCURRENCY={}", w.concurrency));
  spec.env.push_back("OJS_SHUTDOWN_GRACE_PERIOD=" +
                     format_grace(w.grace_period, [this](Duration d) {
                       return env_duration(context_.real_ms(d));
                     }));
  spec.env.push_back("OJS_HEARTBEAT_INTERVAL=" +
                     env_duration(context_.real_ms(w.heartbeat_interval)));
  spec.env.push_back("OJS_POLL_INTERVAL=" + env_duration(context_.real_ms(w.poll_interval)));
  // drainsim-worker behaves as the scenario's profile (another program has its own ways).
  spec.env.push_back("DRAINSIM_PROFILE=" + w.profile);
  spec.env.push_back(
      fmt::format("DRAINSIM_PID1={}", context_.scenario.platform.pid1() == Pid1::kWorker ? 1 : 0));
  std::string options;
  for (const auto& [name, value] : w.options) {
    options += fmt::format("{}{}={}", options.empty() ? "" : ",", name, format_option(value));
  }
  spec.env.push_back("DRAINSIM_PROFILE_OPTIONS=" + options);
  // The profile's own times (its drain polls, its abort, ...) scale as the OJS_ ones do.
  spec.env.push_back(fmt::format("DRAINSIM_TIME_SCALE={:.9g}", 1000.0 / context_.real_ms(kSecond)));
  // drainsim-worker waits out the start-up drawn for it before it registers, as the
  // profile's program would (another program takes its own).
  startup_ = DurationSampler(w.startup).sample(context_.rt.rng(Stream::kStartup));
  if (startup_ > 0)
    spec.env.push_back("DRAINSIM_STARTUP=" + env_duration(context_.real_ms(startup_)));
  slots_.assign(static_cast<std::size_t>(w.concurrency), false);
  concurrency_ = w.concurrency;
  spec.subreaper = true;  // its orphans stay in its subtree, as in a container
  // A worker woken by a reply does not preempt drainsim's server or another worker: on a
  // real fleet they would not share cores. At 5x the timers' and handlers' p99 fell from
  // 2.7-3.7 ms to 1.2-1.6 ms of real time (bench/README.md, issue 39).
  spec.batch = true;
  try {
    if (context_.log != nullptr) spec.output_fd = context_.log->add();
    pid_ = spawn(spec);
  } catch (const std::exception& e) {
    if (spec.output_fd >= 0) close(spec.output_fd);
    context_.fatal(e.what());  // the run stops; this process never runs
    return;
  }
  if (spec.output_fd >= 0) close(spec.output_fd);  // the child has its own copy
  alive_ = true;
  started_at_ = context_.rt.now();
  context_.reaper.watch(pid_);
}

void ChildProcessProxy::deliver(Signal signal, SignalTarget target) {
  if (!alive_) return;
  deliver_signal(pid_, worker_pid_, signal, target);
  const bool swallowed = target == SignalTarget::kPid1 && context_.scenario.platform.pid1_shell;
  if ((signal == Signal::kTerm || signal == Signal::kInt) && !swallowed) term_delivered_ = true;
}

void ChildProcessProxy::handle(const std::string& op, const json& body, const Responder& respond) {
  if (!alive_) throw RequestError{404, "not_found", fmt::format("worker {} has exited", name_)};
  if (op != "register" && worker_id_ == kNoWorker) {
    throw RequestError{404, "not_found", fmt::format("worker {} has not registered", name_)};
  }
  json reply;
  if (op == "register") {
    reply = register_worker(body);
  } else if (op == "fetch") {
    reply = fetch(body);
  } else if (op == "ack") {
    reply = ack(body);
  } else if (op == "nack") {
    reply = nack(body);
  } else if (op == "heartbeat") {
    reply = heartbeat(body);
  } else if (op == "deregister") {
    // Still holding jobs: it killed their threads before saying goodbye (as the virtual
    // engine's SimulatedProcess::deregister has it).
    while (!held_.empty()) end_attempt(held_.begin()->second, Outcome::kKilled);
    context_.backend.deregister(worker_id_);
    reply = json::object();
  } else if (op == "wait") {
    wait(body, respond);
    return;
  } else {
    throw RequestError{404, "not_found", fmt::format("no endpoint /ojs/v1/workers/{}", op)};
  }
  respond(HttpResponse{200, reply.dump()});
}

json ChildProcessProxy::register_worker(const json& body) {
  if (worker_id_ != kNoWorker) {
    throw RequestError{409, "conflict", fmt::format("worker {} is already registered", name_)};
  }
  const json& names = field(body, "queues");
  if (!names.is_array() || names.empty() || names.size() > 64) {
    throw RequestError{400, "invalid_request", "'queues' must be an array of 1 to 64 names"};
  }
  std::vector<int> queues;
  for (const json& q : names) {
    if (!q.is_string()) throw RequestError{400, "invalid_request", "'queues' must hold strings"};
    queues.push_back(context_.backend.queue(q.get<std::string>()));
  }
  if (const auto it = body.find("concurrency"); it != body.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
        it->get<std::int64_t>() > 10000) {
      throw RequestError{400, "invalid_request",
                         "'concurrency' must be an integer from 1 to 10000"};
    }
    concurrency_ = it->get<int>();
  }
  if (const auto it = body.find("pid"); it != body.end() && it->is_number_integer()) {
    // Only a process of this container's group is signalled, whatever a worker says.
    const pid_t pid = it->get<pid_t>();
    if (pid > 0 && getpgid(pid) == pid_) worker_pid_ = pid;
  }
  worker_id_ = context_.backend.register_worker(queues, this, pod_);
  set_state(WorkerState::kRunning);
  return json{{"worker_id", name_}};
}

json ChildProcessProxy::fetch(const json& body) {
  const std::int64_t count = int_field(body, "count");
  if (count < 0) throw RequestError{400, "invalid_request", "'count' must not be negative"};
  return json{{"jobs", hand_out(static_cast<int>(std::min<std::int64_t>(count, 1 << 20)))}};
}

json ChildProcessProxy::hand_out(int count) {
  std::vector<Lease> leases;
  context_.backend.fetch(worker_id_, count, leases);
  const WorkloadConfig& workload = context_.scenario.workload;
  json jobs = json::array();
  for (const Lease& lease : leases) {
    Held h{lease, context_.rt.now(), 0};
    while (h.slot < static_cast<int>(slots_.size()) && slots_[h.slot]) ++h.slot;
    if (h.slot == static_cast<int>(slots_.size())) slots_.push_back(false);
    slots_[h.slot] = true;
    held_[lease.id] = h;
    context_.recorder.attempt_started(lease, h.start);
    // The same draws as a simulated process: whether the attempt fails, and where.
    const Duration remaining = std::max<Duration>(0, lease.spec.work - lease.progress);
    Rng& rng = context_.rt.rng(Stream::kJobBehaviour);
    const double failure_rate = workload.failure_rate_of(lease.spec.job_class);
    const bool fails = failure_rate > 0 && rng.bernoulli(failure_rate);
    json args{{"duration_ms", context_.real_ms(remaining)},
              {"fail_after_ms", nullptr},
              {"cooperative", lease.spec.cooperative},
              {"cancel_latency_ms", context_.real_ms(lease.spec.cancel_latency)}};
    if (fails) {
      args["fail_after_ms"] =
          context_.real_ms(static_cast<Duration>(static_cast<double>(remaining) * rng.uniform()));
    }
    jobs.push_back(json{{"id", std::to_string(lease.id)},
                        {"type", "drainsim.sleep"},
                        {"queue", context_.scenario.worker.queues.front()},
                        {"attempt", lease.attempt},
                        {"args", json::array({args})}});
  }
  return jobs;
}

ChildProcessProxy::Held& ChildProcessProxy::held(const json& body) {
  const JobId id = job_id(body);
  const auto it = held_.find(id);
  if (it == held_.end()) {
    throw RequestError{409, "conflict", fmt::format("worker {} is not running job {}", name_, id)};
  }
  return it->second;
}

void ChildProcessProxy::end_attempt(const Held& h, Outcome outcome) {
  AttemptRecord record;
  record.job = h.lease.id;
  record.attempt = h.lease.attempt;
  record.pod = pod_;
  record.worker = worker_id_;
  record.slot = h.slot;
  record.start = h.start;
  record.end = context_.rt.now();
  record.outcome = outcome;
  context_.recorder.attempt_ended(h.lease, record, 0);
  slots_[h.slot] = false;
  held_.erase(h.lease.id);
}

json ChildProcessProxy::ack(const json& body) {
  const Held h = held(body);
  // How late the body's end reached the models past its work (engine_behind): the round
  // trips and the worker's own lag, which hold the slot as long (issue 39).
  const Duration work = std::max<Duration>(0, h.lease.spec.work - h.lease.progress);
  context_.rt.body_ended_late(work, std::max<Duration>(0, context_.rt.now() - h.start - work));
  end_attempt(h, Outcome::kCompleted);  // its work is done, whether or not the ACK counts
  const bool accepted = context_.backend.ack(worker_id_, h.lease);
  context_.recorder.report({context_.rt.now(), pod_, worker_id_, h.lease.id, h.lease.attempt,
                            ReportKind::kAck, ErrorKind::kHandler, accepted});
  if (!accepted) {
    throw RequestError{409, "conflict",
                       fmt::format("job {} is no longer leased to {}", h.lease.id, name_)};
  }
  return json{{"job_id", std::to_string(h.lease.id)}, {"state", "completed"}};
}

json ChildProcessProxy::nack(const json& body) {
  const Held h = held(body);
  const json& error = field(body, "error");
  if (!error.is_object()) throw RequestError{400, "invalid_request", "'error' must be an object"};
  const bool shutdown = error.value("type", "") == "ShutdownError";
  const bool retryable = error.value("retryable", true);
  end_attempt(h, shutdown ? Outcome::kInterrupted : Outcome::kFailed);
  const ErrorKind kind = shutdown ? ErrorKind::kShutdown : ErrorKind::kHandler;
  const bool accepted =
      context_.backend.fail(worker_id_, h.lease, kind, retryable, h.lease.progress);
  context_.recorder.report({context_.rt.now(), pod_, worker_id_, h.lease.id, h.lease.attempt,
                            ReportKind::kFail, kind, accepted});
  if (!accepted) {
    throw RequestError{409, "conflict",
                       fmt::format("job {} is no longer leased to {}", h.lease.id, name_)};
  }
  const std::optional<JobState> state = context_.backend.job_state(h.lease.handle, h.lease.id);
  return json{{"job_id", std::to_string(h.lease.id)},
              {"state", state ? drainsim::to_string(*state) : "discarded"}};
}

json ChildProcessProxy::heartbeat(const json& body) {
  const Directive reported = directive(string_field(body, "state"));
  std::vector<Lease> active;
  if (const auto it = body.find("active_jobs"); it != body.end() && it->is_array()) {
    for (const json& id : *it) {
      const std::optional<JobId> job =
          id.is_string() ? parse_number<JobId>(id.get<std::string>()) : std::nullopt;
      if (!job) continue;
      if (const auto h = held_.find(*job); h != held_.end()) active.push_back(h->second.lease);
    }
  }
  context_.recorder.heartbeat(context_.rt.now(), pod_, worker_id_, reported);
  const Directive reply = context_.backend.heartbeat(worker_id_, reported, active);
  switch (reported) {
    case Directive::kRunning:
      set_state(WorkerState::kRunning);
      break;
    case Directive::kQuiet:
      set_state(term_delivered_ ? WorkerState::kDraining : WorkerState::kQuiet);
      answer_wait(false);
      break;
    case Directive::kTerminate:
      set_state(WorkerState::kStopped);
      answer_wait(false);
      break;
  }
  return json{{"state", to_string(reply)}};
}

void ChildProcessProxy::wait(const json& body, const Responder& respond) {
  const std::int64_t timeout = int_field(body, "timeout_ms");
  std::int64_t count = 0;
  if (const auto it = body.find("count"); it != body.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
      throw RequestError{400, "invalid_request", "'count' must be a non-negative integer"};
    }
    count = std::min<std::int64_t>(it->get<std::int64_t>(), 1 << 20);
  }
  answer_wait(false);  // a new wait replaces an old one
  ++waits_;
  waiting_ = respond;
  wait_count_ = static_cast<int>(count);
  if (context_.backend.has_jobs_for(worker_id_)) {
    answer_wait(true);
    return;
  }
  if (state_ != WorkerState::kRunning || timeout <= 0) {
    waiting_ = nullptr;  // it never waited on the backend's side: nothing to cancel there
    respond(HttpResponse{200, json{{"available", false}}.dump()});
    return;
  }
  context_.backend.wait_for_jobs(worker_id_);
  wait_timer_ =
      context_.rt.schedule(context_.rt.now() + context_.simulated(static_cast<double>(timeout)),
                           Priority::kTimer, this, kWaitTimeout);
}

void ChildProcessProxy::answer_wait(bool available) {
  context_.rt.cancel(wait_timer_);
  if (!waiting_) return;
  const Responder respond = std::move(waiting_);
  waiting_ = nullptr;
  if (!available && worker_id_ != kNoWorker) context_.backend.cancel_wait(worker_id_);
  json reply{{"available", available}};
  // A wait with a count is a fetch that waits: the jobs come with the answer, no more than
  // the worker has slots free by this side's count (its ACKs on their way hold theirs).
  const int free = concurrency_ - static_cast<int>(held_.size());
  if (available && wait_count_ > 0 && free > 0) {
    reply["jobs"] = hand_out(std::min(wait_count_, free));
  }
  respond(HttpResponse{200, reply.dump()});
}

void ChildProcessProxy::on_jobs_available() {
  if (wait_count_ == 0) {
    answer_wait(true);
    return;
  }
  // The jobs are fetched once the backend, which is handing them out, has returned: a
  // hop on the models' strand (a handler, as the requests are), for this wait only.
  context_.rt.post([this, wait = waits_] {
    if (wait == waits_) answer_wait(true);
  });
}

void ChildProcessProxy::on_timer(std::uint32_t tag, std::uint64_t /*arg*/) {
  if (tag == kWaitTimeout) {
    wait_timer_ = TimerId{};
    answer_wait(false);
  }
}

void ChildProcessProxy::set_state(WorkerState s) {
  if (s == state_) return;
  state_ = s;
  observer_.on_worker_state(pod_, s);
}

void ChildProcessProxy::ended(ChildExit how) {
  alive_ = false;
  if (worker_id_ == kNoWorker && !how.signalled && (how.code == 126 || how.code == 127)) {
    // The shell's "cannot execute" and "not found": every start would fail the same way.
    context_.fatal(fmt::format("the worker command `{}` exited with {} before registering ({})",
                               context_.shell, how.code,
                               how.code == 127 ? "not found" : "cannot execute"));
  }
  if (worker_id_ == kNoWorker && context_.unregistered_end) {
    context_.unregistered_end(name_, how, context_.rt.now() - started_at_);
  }
  const Outcome outcome = how.signalled ? Outcome::kKilled : Outcome::kAbandoned;
  while (!held_.empty()) end_attempt(held_.begin()->second, outcome);
  if (worker_id_ != kNoWorker) context_.backend.process_ended(worker_id_);
  answer_wait(false);
  state_ = WorkerState::kStopped;
  if (how.signalled) {
    observer_.on_process_end(
        pod_, how.code == SIGKILL ? ProcessEnd::kKilled : ProcessEnd::kSignalled, 128 + how.code);
  } else {
    observer_.on_process_end(pod_, ProcessEnd::kExited, how.code);
  }
}

}  // namespace drainsim
