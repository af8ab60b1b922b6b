#include "process/http_worker.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "base/parse.h"
#include "profiles/profile.h"

namespace drainsim {

using nlohmann::json;

namespace {

// An environment variable's value in a message: cut past 80 characters.
std::string shown(std::string_view text) {
  return text.size() > 80 ? std::string(text.substr(0, 77)) + "..." : std::string(text);
}

Duration env_duration(const std::function<const char*(const char*)>& get, const char* name,
                      Duration fallback) {
  const char* text = get(name);
  if (text == nullptr) return fallback;
  const std::optional<Duration> d = parse_duration(text);
  if (!d || *d <= 0) {
    throw std::invalid_argument(fmt::format(
        "{}=\"{}\": expected a positive duration such as 250ms or 1.5s", name, shown(text)));
  }
  return *d;
}

// A grace period (base/duration.h): a positive duration, or "forever".
Duration env_grace(const std::function<const char*(const char*)>& get, const char* name,
                   Duration fallback) {
  const char* text = get(name);
  if (text == nullptr) return fallback;
  const std::optional<Duration> d = parse_grace(text);
  if (!d || *d <= 0) {
    throw std::invalid_argument(
        fmt::format("{}=\"{}\": expected a positive duration such as 250ms or 1.5s, or {}", name,
                    shown(text), kForever));
  }
  return *d;
}

// DRAINSIM_PROFILE_OPTIONS: "NAME=VALUE,..." (format_option's text) set over the defaults.
void set_options(std::string_view text, ProfileOptions& options) {
  while (!text.empty()) {
    const std::string_view item = text.substr(0, text.find(','));
    text.remove_prefix(std::min(text.size(), item.size() + 1));
    const std::size_t eq = item.find('=');
    const auto it = options.find(item.substr(0, eq));
    const std::optional<OptionValue> value = eq == std::string_view::npos || it == options.end()
                                                 ? std::nullopt
                                                 : parse_option(it->second, item.substr(eq + 1));
    if (!value) {
      throw std::invalid_argument(fmt::format(
          "DRAINSIM_PROFILE_OPTIONS: \"{}\": expected NAME=VALUE with an option of the profile",
          shown(item)));
    }
    it->second = *value;
  }
}

Duration from_ms(const json& v) {
  return v.is_number() ? static_cast<Duration>(v.get<double>() * 1000.0 + 0.5) : -1;
}

}  // namespace

HttpWorkerConfig worker_config_from_env(const std::function<const char*(const char*)>& get) {
  HttpWorkerConfig c;
  const char* url = get("OJS_URL");
  const std::string_view scheme = "http://";
  if (url == nullptr || std::string_view(url).substr(0, scheme.size()) != scheme) {
    throw std::invalid_argument(
        fmt::format("OJS_URL=\"{}\": expected http://HOST:PORT", shown(url ? url : "")));
  }
  std::string_view rest = std::string_view(url).substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const std::size_t colon = rest.rfind(':');
  const std::optional<unsigned> port = colon == std::string_view::npos
                                           ? std::nullopt
                                           : parse_number<unsigned>(rest.substr(colon + 1));
  if (!port || *port == 0 || *port > 65535) {
    throw std::invalid_argument(
        fmt::format("OJS_URL=\"{}\": expected http://HOST:PORT", shown(url)));
  }
  c.host = std::string(rest.substr(0, colon));
  c.port = static_cast<std::uint16_t>(*port);
  const char* name = get("OJS_WORKER_ID");
  if (name == nullptr || *name == '\0') {
    throw std::invalid_argument("OJS_WORKER_ID is not set: expected the worker's id");
  }
  c.name = name;
  if (const char* queues = get("OJS_QUEUES")) {
    c.worker.queues.clear();
    std::string_view q = queues;
    while (!q.empty()) {
      const std::size_t comma = q.find(',');
      if (comma != 0) c.worker.queues.emplace_back(q.substr(0, comma));
      q = comma == std::string_view::npos ? std::string_view{} : q.substr(comma + 1);
    }
    if (c.worker.queues.empty()) {
      throw std::invalid_argument("OJS_QUEUES is empty: expected queue names, comma-separated");
    }
  }
  if (const char* n = get("OJS_CONCURRENCY")) {
    const std::optional<int> value = parse_number<int>(n);
    if (!value || *value < 1 || *value > 10000) {
      throw std::invalid_argument(
          fmt::format("OJS_CONCURRENCY=\"{}\": expected an integer from 1 to 10000", shown(n)));
    }
    c.worker.concurrency = *value;
  }
  c.worker.grace_period = env_grace(get, "OJS_SHUTDOWN_GRACE_PERIOD", c.worker.grace_period);
  c.worker.heartbeat_interval =
      env_duration(get, "OJS_HEARTBEAT_INTERVAL", c.worker.heartbeat_interval);
  c.worker.poll_interval = env_duration(get, "OJS_POLL_INTERVAL", c.worker.poll_interval);
  if (const char* profile_name = get("DRAINSIM_PROFILE")) {
    const Profile* profile = find_profile(profile_name);
    if (profile == nullptr) {
      throw std::invalid_argument("DRAINSIM_PROFILE: " + unknown_profile(shown(profile_name)));
    }
    c.worker.profile = profile_name;
    c.worker.options = default_options(*profile);
    if (const char* options = get("DRAINSIM_PROFILE_OPTIONS")) {
      set_options(options, c.worker.options);
    }
    c.worker.shutdown = shutdown_behaviour(c.worker);
  }
  if (const char* pid1 = get("DRAINSIM_PID1")) {
    if (std::string_view(pid1) != "0" && std::string_view(pid1) != "1") {
      throw std::invalid_argument(
          fmt::format("DRAINSIM_PID1=\"{}\": expected 1 or 0", shown(pid1)));
    }
    c.pid1 = std::string_view(pid1) == "1";
  }
  if (get("DRAINSIM_STARTUP") != nullptr) c.startup = env_duration(get, "DRAINSIM_STARTUP", 0);
  if (const char* scale = get("DRAINSIM_TIME_SCALE")) {
    // The profile's own times are simulated: in real time they are that many times shorter
    // (the OJS_ durations above come scaled already).
    const std::optional<double> f = parse_number<double>(scale);
    if (!f || !(*f >= 1e-6) || *f > 1e6) {
      throw std::invalid_argument(
          fmt::format("DRAINSIM_TIME_SCALE=\"{}\": expected a number of simulated seconds per real "
                      "second from 0.000001 to 1000000",
                      shown(scale)));
    }
    ShutdownBehaviour& b = c.worker.shutdown;
    for (Duration* d : {&b.cancel_after, &b.drain_poll, &b.drain_linger, &b.idle_fetch_timeout,
                        &b.consumer_fetch_timeout, &b.deadline_lead, &b.deadline_action_cost}) {
      if (*d != kNever) *d = static_cast<Duration>(std::llround(static_cast<double>(*d) / *f));
    }
  }
  if (const char* body = get("DRAINSIM_JOB_BODY")) {
    const std::optional<JobBody> b = from_name<JobBody>(body);
    if (!b) {
      throw std::invalid_argument(
          fmt::format("DRAINSIM_JOB_BODY=\"{}\": expected sleep, spin or timer", shown(body)));
    }
    c.bodies = *b;
  }
  return c;
}

HttpWorker::HttpWorker(StrandRuntime& rt, HttpWorkerConfig config, std::function<void(int)> on_exit)
    : rt_(rt),
      config_(std::move(config)),
      client_(rt.executor(), config_.host, config_.port),
      core_(rt, *this, config_.worker),
      runner_(make_job_runner(config_.bodies, rt, this, config_.worker.concurrency)),
      bodies_(static_cast<std::size_t>(config_.worker.concurrency)),
      on_exit_(std::move(on_exit)) {}

HttpWorker::~HttpWorker() { client_.close(); }

void HttpWorker::send(const std::string& op, json body, Reply reply, bool alone) {
  body["worker_id"] = config_.name;
  if (!alone) ++in_flight_;
  // The client shares the worker's strand: its replies run here, with no hop (issue 39).
  auto done = [this, op, reply = std::move(reply), alone](boost::system::error_code ec, int status,
                                                          const std::string& text) {
    if (!alone) --in_flight_;
    if (ec && ec != boost::asio::error::operation_aborted) {
      give_up(fmt::format("{}: {}", op, ec.message()));
      return;
    }
    const json parsed = json::parse(text, nullptr, false);
    const bool ok = !ec && status >= 200 && status < 300 && !parsed.is_discarded();
    if (!ok && !ec) {
      std::fprintf(stderr, "%s: %s answered %d: %s\n", config_.name.c_str(), op.c_str(), status,
                   text.c_str());
    }
    try {
      if (reply && exit_code_ < 0) reply(ok, parsed);
    } catch (const json::exception& e) {  // a reply that does not follow the protocol
      give_up(fmt::format("{}: malformed reply: {}", op, e.what()));
      return;
    }
    finish_if_quiet();
  };
  const std::string target = "/ojs/v1/workers/" + op;
  if (alone) {
    client_.post_alone(target, body.dump(), std::move(done));
  } else {
    client_.post(target, body.dump(), std::move(done));
  }
}

void HttpWorker::start() {
  if (config_.startup > 0) {
    rt_.schedule(rt_.now() + config_.startup, Priority::kTimer, this, kStarted);
  } else {
    register_worker();
  }
}

void HttpWorker::register_worker() {
  started_ = true;
  json body{{"queues", config_.worker.queues},
            {"concurrency", config_.worker.concurrency},
            {"pid", static_cast<int>(getpid())}};
  send("register", std::move(body), [this](bool ok, const json&) {
    if (!ok) {
      give_up("registration refused");
      return;
    }
    core_.start();
  });
}

static_assert(number(Signal::kTerm) == SIGTERM && number(Signal::kInt) == SIGINT &&
              number(Signal::kTstp) == SIGTSTP && number(Signal::kCont) == SIGCONT &&
              number(Signal::kKill) == SIGKILL && number(Signal::kQuit) == SIGQUIT);

void HttpWorker::on_posix_signal(int number) {
  if (exit_code_ >= 0) return;
  switch (number) {
    case SIGTERM:
    case SIGINT:
      if (!(started_ && core_.on_signal(number == SIGTERM ? Signal::kTerm : Signal::kInt)) &&
          !config_.pid1) {
        std::signal(number, SIG_DFL);  // no handler, not PID 1: the default action
        std::raise(number);
      }
      break;
    case SIGTSTP:
      if (started_) core_.on_signal(Signal::kTstp);
      break;
    case SIGCONT:
      if (started_) core_.on_signal(Signal::kCont);
      break;
    default:
      break;
  }
  return_carried_if_stopped();
}

void HttpWorker::fetch(int count) {
  if (!carried_.empty()) {
    // The jobs a wait's answer carried: the backend fetched them for this worker as it
    // answered, never more than its free slots (so never more than `count`).
    rt_.post([this, leases = std::exchange(carried_, {}),
              fail_after = std::exchange(carried_fail_after_, {})]() mutable {
      if (exit_code_ >= 0) return;
      fail_after_ = std::move(fail_after);
      fetched_index_ = 0;
      core_.on_fetched(leases);
      fail_after_.clear();
    });
    return;
  }
  if (waiting_) {
    // A /wait still out means a fetch would get nothing (the backend answers it as soon as
    // one would), and a fetch would end the backend's side of the wait, which this worker
    // would not send again while its long-poll is out: the next job would wait for the
    // long-poll's timeout. So the core's fetch is answered empty here and the wait stays,
    // as in the models, where the fetch and the wait again come in one step and leave the
    // worker listed where it was (Backend::fetch, Backend::wait_for_jobs).
    rt_.post([this] {
      if (exit_code_ < 0) core_.on_fetched({});
    });
    return;
  }
  send("fetch", json{{"count", count}}, [this](bool ok, const json& reply) {
    std::vector<Lease> leases;
    if (ok) read_jobs(reply, leases, fail_after_);
    fetched_index_ = 0;
    core_.on_fetched(leases);
    fail_after_.clear();
  });
}

void HttpWorker::read_jobs(const json& reply, std::vector<Lease>& leases,
                           std::vector<Duration>& fail_after) {
  const auto jobs = reply.find("jobs");
  if (jobs == reply.end() || !jobs->is_array()) return;
  for (const json& job : *jobs) {
    const json args = job.value("args", json::array());
    const json a = args.is_array() && !args.empty() ? args[0] : json::object();
    Lease lease;
    lease.id = parse_number<JobId>(job.value("id", "0")).value_or(0);
    lease.attempt = job.value("attempt", 1);
    lease.spec.work = std::max<Duration>(0, from_ms(a.value("duration_ms", json(0))));
    lease.spec.cancel_latency =
        std::max<Duration>(0, from_ms(a.value("cancel_latency_ms", json(0))));
    lease.spec.cooperative = a.value("cooperative", true);
    leases.push_back(lease);
    fail_after.push_back(from_ms(a.value("fail_after_ms", json(nullptr))));
  }
}

void HttpWorker::wait_for_jobs() {
  if (waiting_) {
    rewait_ = true;  // if the one out comes back empty (its timeout), wait again at once
    return;
  }
  if (!carried_.empty()) {  // jobs carried while the core's own fetch was answered
    rt_.post([this] {
      if (exit_code_ < 0) core_.on_jobs_available();
    });
    return;
  }
  waiting_ = true;
  rewait_ = false;
  const auto timeout = config_.worker.poll_interval / kMillisecond;
  // With a count the answer carries the jobs, which saves a fetch per job (issue 39).
  send(
      "wait",
      json{{"timeout_ms", std::max<Duration>(1, timeout)}, {"count", config_.worker.concurrency}},
      [this](bool ok, const json& reply) {
        waiting_ = false;
        if (ok && reply.value("available", false)) {
          read_jobs(reply, carried_, carried_fail_after_);
          core_.on_jobs_available();  // a running core fetches, and fetch() hands it these
          // Else a fetch of its own is answered (empty) first, and its next wait takes them.
          return_carried_if_stopped();
        } else if (ok && std::exchange(rewait_, false)) {
          wait_for_jobs();
        }
      },
      true);
}

void HttpWorker::return_carried_if_stopped() {
  // (An exited worker reports nothing more: the backend counts what it held at its end.)
  if (carried_.empty() || core_.state() == WorkerState::kRunning || exit_code_ >= 0) return;
  // A core that stopped taking jobs (a signal overtook the answer that carried them)
  // never fetches them: they go back as shutdown NACKs, as release() sends.
  for (const Lease& lease : std::exchange(carried_, {})) nack(lease, true, true);
  carried_fail_after_.clear();
}

void HttpWorker::ack(int /*slot*/, const Lease& lease) {
  send("ack", json{{"job_id", std::to_string(lease.id)}});
}

void HttpWorker::fail(int slot, const Lease& lease, ErrorKind error, bool retryable) {
  Body& body = bodies_[slot];
  if (body.running) {  // given up on while its body runs (the grace deadline)
    runner_->abort(slot);
    body.running = false;
  }
  nack(lease, error == ErrorKind::kShutdown, retryable);
}

void HttpWorker::nack(const Lease& lease, bool shutdown, bool retryable) {
  send("nack", json{{"job_id", std::to_string(lease.id)},
                    {"error",
                     {{"type", shutdown ? "ShutdownError" : "HandlerError"},
                      {"message", shutdown ? "worker shutting down" : "the job failed"},
                      {"retryable", retryable}}}});
}

void HttpWorker::heartbeat(Directive state, std::span<const Lease> active) {
  json ids = json::array();
  for (const Lease& lease : active) ids.push_back(std::to_string(lease.id));
  send("heartbeat", json{{"state", to_string(state)}, {"active_jobs", ids}},
       [this, state](bool ok, const json& reply) {
         if (!ok || state == Directive::kTerminate) return;
         core_.on_directive(
             parse_directive(reply.value("state", "running")).value_or(Directive::kRunning));
       });
}

// The OJS binding has no requeue: the job is NACKed as a ShutdownError instead.
void HttpWorker::requeue(int slot, const Lease& lease) {
  fail(slot, lease, ErrorKind::kShutdown, true);
}

// Nor a release: the process engine refuses profiles that reserve jobs (run_process), so
// this NACKs like requeue should it ever be reached.
void HttpWorker::release(const Lease& lease) { nack(lease, true, true); }

// Nor a late fetch: the process engine refuses profiles with one (run_process). A fetch
// whose reply reaches a core that has stopped taking jobs (a signal overtook the reply)
// lands here too: the backend handed the job before it knew, so it goes back as release().
void HttpWorker::keep(const Lease& lease) { nack(lease, true, true); }

void HttpWorker::deregister() { send("deregister", json::object()); }

void HttpWorker::start_job(int slot, const Lease& lease) {
  Body& body = bodies_[slot];
  body.lease = lease;
  body.running = true;
  const std::size_t index = fetched_index_++;
  body.fail_after = index < fail_after_.size() ? fail_after_[index] : -1;
  const Duration run_for =
      body.fail_after >= 0 ? std::min(body.fail_after, lease.spec.work) : lease.spec.work;
  runner_->start(slot, ++body.generation, run_for);
}

void HttpWorker::cancel_job(int slot) {
  Body& body = bodies_[slot];
  if (body.running && body.lease.spec.cooperative) {
    runner_->cancel(slot, body.lease.spec.cancel_latency);
  }
}

// Unreached: an OJS fetch reply carries no lease expiry (Lease::expires stays kNever), so
// fails_at_lease_expiry never fires here, and drainsim's process engine refuses the
// scenarios where it would (run/process_engine.cpp). Were it reached, the OJS binding could
// not report a run that outlives its job, so the body stops.
void HttpWorker::detach_job(int slot) {
  Body& body = bodies_[slot];
  if (!body.running) return;
  runner_->abort(slot);
  body.running = false;
}

void HttpWorker::state_changed(WorkerState state) {
  std::fprintf(stderr, "%s: %s\n", config_.name.c_str(), drainsim::to_string(state));
}

void HttpWorker::log_remaining(int active) {
  std::fprintf(stderr, "%s: draining, %d job(s) remaining\n", config_.name.c_str(), active);
}

void HttpWorker::exit(int code, Outcome /*leftover: the backend records attempts*/) {
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    if (bodies_[i].running) runner_->abort(static_cast<int>(i));
    bodies_[i].running = false;
  }
  exit_code_ = code;
  finish_if_quiet();
}

void HttpWorker::finish_if_quiet() {
  if (exit_code_ < 0 || in_flight_ > 0 || reported_) return;
  reported_ = true;
  on_exit_(exit_code_);
}

void HttpWorker::give_up(const std::string& why) {
  std::fprintf(stderr, "%s: giving up on the backend (%s); exiting\n", config_.name.c_str(),
               why.c_str());
  core_.on_killed();
  if (exit_code_ < 0) exit(3, Outcome::kAbandoned);
  in_flight_ = 0;
  finish_if_quiet();
}

void HttpWorker::on_timer(std::uint32_t tag, std::uint64_t arg) {
  if (tag == kStarted) {
    if (exit_code_ < 0) register_worker();
    return;
  }
  if (tag == JobRunner::kThreadRefused) {
    std::fprintf(stderr,
                 "%s: the OS refused a job body its thread (%s): such bodies run as "
                 "timers\n",
                 config_.name.c_str(), std::strerror(static_cast<int>(arg)));
    return;
  }
  const int slot = static_cast<int>(arg & 0xffffffffu);
  Body& body = bodies_[slot];
  if (!body.running || body.generation != arg >> 32) return;  // given up on
  body.running = false;
  const JobResult result = tag == JobRunner::kBodyCancelled ? JobResult::kCancelled
                           : body.fail_after >= 0           ? JobResult::kFailed
                                                            : JobResult::kSucceeded;
  core_.on_job_finished(slot, result);
}

}  // namespace drainsim
