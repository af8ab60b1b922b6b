#include "process/real_system.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <boost/asio/read_until.hpp>
#include <nlohmann/json.hpp>

namespace drainsim {

namespace {

constexpr Duration kEventsPoll = 20 * kMillisecond;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The parent of process `pid` (/proc/PID/stat's fourth field), or -1 when it is gone.
pid_t parent_of(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!std::getline(in, stat)) return -1;
  const std::size_t name_end = stat.rfind(')');  // the name may hold spaces and parentheses
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string state;
  pid_t parent = -1;
  fields >> state >> parent;
  return parent;
}

std::string tail(const std::string& text, std::size_t bytes = 1000) {
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

// The line of a program's output that names its error, wherever its language prints it
// (Ruby first, then the backtrace; Python and Node last): the last line that mentions an
// error, an exception or a refused, reset or timed-out connection and is no backtrace
// frame; "" when none does. At most 300 bytes.
std::string cause_line(const std::string& output) {
  static const std::regex error(
      "error|exception|refused|timeout|timed out|econn|epipe|reset|closed|fatal|killed",
      std::regex::icase | std::regex::optimize);
  static const std::regex frame(R"(^\s*(from |at |File "|\^|~))", std::regex::optimize);
  std::istringstream lines(output);
  std::string found;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, error) && !std::regex_search(line, frame)) found = line;
  }
  const std::size_t start = found.find_first_not_of(" \t");
  found = start == std::string::npos ? "" : found.substr(start);
  return found.size() > 300 ? found.substr(0, 300) + "..." : found;
}

// `what` and the cause in `output`, then the end of `output`: "WHAT: CAUSE; the end of its
// output:\nTAIL" (without the cause when no line names one).
std::string with_output(const std::string& what, const std::string& output) {
  if (output.find_first_not_of(" \t\r\n") == std::string::npos) {
    return what + "; it wrote nothing";
  }
  const std::string cause = cause_line(output);
  return fmt::format("{}{}; the end of its output:\n{}", what, cause.empty() ? "" : ": " + cause,
                     tail(output));
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

constexpr std::uint32_t kPoll = 0;     // the events file, the broker, the enqueuer
constexpr std::uint32_t kInspect = 1;  // an inspector's wait (arg: its pid)

}  // namespace

// One container's process of the real system.
class RealWorker final : public ProcessHandle {
 public:
  RealWorker(RealSystem& system, ProcessObserver& observer, int pod)
      : system_(system), observer_(observer), pod_(pod) {}

  void start() override {
    const RealSystemOptions& o = system_.options_;
    const std::string name = fmt::format("pod-{}", pod_);
    SpawnSpec spec{o.worker, o.env, system_.log_file(name)};
    for (std::string& a : spec.argv) {
      for (std::size_t at; (at = a.find("{worker}")) != std::string::npos;) a.replace(at, 8, name);
    }
    spec.env.push_back("DRAINSIM_WORKER=" + name);
    if (o.pid1_shell) {
      std::string command = "exec";  // the shell's child: exec spares one more process
      for (const std::string& a : spec.argv) command += " " + shell_quote(a);
      spec.argv = pid1_shell_argv(command);
    }
    try {
      pid_ = spawn(spec);
    } catch (const std::exception& e) {
      system_.fail("worker", e.what());
      return;
    }
    alive_ = true;
    system_.reaper_.watch(pid_);
    system_.by_pid_[pid_] = this;
  }

  // Only for systems whose adapters name their pool children (the manifest honours
  // events.oom_kill_child); drainsim real refuses the event for the others.
  void kill_child() override {
    if (!alive_ || worker_pid_ <= 0) return;
    system_.read_events();  // the latest word on which child runs what
    if (system_.kill_longest_child(*this) && active_ > 0) --active_;
  }
  void deliver(Signal signal, SignalTarget target) override {
    if (!alive_) return;
    sent_.insert(posix_signal(signal));
    deliver_signal(pid_, worker_pid_, signal, target);
  }
  WorkerId worker_id() const override {
    return state_ == WorkerState::kStarting ? kNoWorker : static_cast<WorkerId>(worker_pid_);
  }
  WorkerState state() const override { return state_; }
  int active_jobs() const override { return active_; }

  // An event of this pod's worker, from process `pid`.
  void event(const std::string& kind, pid_t pid) {
    if (!alive_) return;
    if (worker_pid_ <= 0) {
      worker_pid_ = pid;
      system_.by_pid_[pid] = this;
    }
    if (kind == "ready") {
      set_state(WorkerState::kRunning);
    } else if (kind == "quiet") {
      set_state(WorkerState::kQuiet);
    } else if (kind == "shutdown") {
      set_state(WorkerState::kDraining);
    } else if (kind == "start") {
      ++active_;
    } else if (kind == "end" && active_ > 0) {
      --active_;
    }
  }

  void ended(ChildExit how) {
    alive_ = false;
    active_ = 0;
    if (how.signalled && !sent_.contains(how.code)) {
      // Not the platform's doing: its own crash, or another process's kill.
      system_.outside_ends_.push_back(
          fmt::format("pod-{}'s worker (pid {}) ended at {} by {}", pod_, pid_,
                      format_seconds(to_seconds(system_.rt_.now())), signal_name(how.code)));
    }
    if (worker_pid_ <= 0 && !how.signalled && (how.code == 126 || how.code == 127)) {
      system_.fail("worker", fmt::format("the worker program `{}` exited with {} before it was "
                                         "ready; its output is in {}",
                                         system_.options_.worker.front(), how.code,
                                         system_.log_file(fmt::format("pod-{}", pod_))));
    }
    state_ = WorkerState::kStopped;
    const ProcessEnd end = !how.signalled        ? ProcessEnd::kExited
                           : how.code == SIGKILL ? ProcessEnd::kKilled
                                                 : ProcessEnd::kSignalled;
    observer_.on_process_end(pod_, end, how.code);
  }

  pid_t pid() const { return pid_; }
  pid_t worker_pid() const { return worker_pid_; }
  int pod() const { return pod_; }

 private:
  void set_state(WorkerState s) {
    if (s == state_) return;
    state_ = s;
    observer_.on_worker_state(pod_, s);
  }

  RealSystem& system_;
  ProcessObserver& observer_;
  int pod_;
  pid_t pid_ = -1;         // the child: the worker, or the shell that runs it
  pid_t worker_pid_ = -1;  // the worker's own pid, from its first event
  WorkerState state_ = WorkerState::kStarting;
  int active_ = 0;
  bool alive_ = false;
  std::set<int> sent_;  // the signals drainsim sent it
};

RealSystem::RealSystem(StrandRuntime& rt, boost::asio::io_context& io, RealSystemOptions options)
    : rt_(rt),
      io_(io),
      options_(std::move(options)),
      reaper_(io.get_executor(), [this](pid_t pid, ChildExit how) {
        const double at = unix_now();
        rt_.post([this, pid, how, at] {
          endings_.push_back({pid, at, how.signalled});
          on_exit(pid, how);
        });
      }) {}

RealSystem::~RealSystem() {
  stopping_ = true;
  if (enqueuer_in_ >= 0) close(enqueuer_in_);
  reaper_.kill_all();
}

ProcessFactory RealSystem::factory() {
  return [this](int pod, ProcessObserver& observer) -> std::unique_ptr<ProcessHandle> {
    auto worker = std::make_unique<RealWorker>(*this, observer, pod);
    if (current_.size() <= static_cast<std::size_t>(pod)) current_.resize(pod + 1, nullptr);
    current_[pod] = worker.get();
    return worker;
  };
}

std::string RealSystem::log_file(const std::string& name) const {
  return options_.logs + "/" + name + ".log";
}

void RealSystem::start() {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("cannot make a pipe: {}", strerror(errno)));
  }
  SpawnSpec spec{options_.enqueue, options_.env, log_file("enqueue")};
  spec.stdin_fd = in[0];
  spec.stdout_fd = out[1];
  try {
    enqueuer_ = spawn(spec);
  } catch (...) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    throw;
  }
  close(in[0]);
  close(out[1]);
  enqueuer_in_ = in[1];
  reaper_.watch(enqueuer_);
  enqueuer_out_ = std::make_unique<boost::asio::posix::stream_descriptor>(io_, out[0]);
  read_enqueuer();
  rt_.schedule(rt_.now(), Priority::kBackend, this, kPoll);
}

void RealSystem::read_enqueuer() {
  boost::asio::async_read_until(
      *enqueuer_out_, enqueuer_buf_, '\n',
      [this](const boost::system::error_code& ec, std::size_t) {
        if (ec) return;  // closed: its exit says why
        rt_.post([this] {
          std::istream lines(&enqueuer_buf_);
          std::string line;
          std::getline(lines, line);
          std::istringstream words(line);
          std::string word;
          std::uint64_t job = 0;
          if (words >> word >> job && (word == "enqueued" || word == "refused")) {
            (word == "enqueued" ? enqueued_ : refused_).emplace(job, rt_.now());
            last_confirm_progress_ = rt_.now();
            changed();
          }
          read_enqueuer();
        });
      });
}

void RealSystem::enqueue(const std::string& line) {
  if (enqueuer_in_ < 0) return;
  if (unconfirmed() == 0) last_confirm_progress_ = rt_.now();  // a wait begins
  const std::string text = line + "\n";
  // A write to an enqueuer that has died raises SIGPIPE in this thread, which would end
  // drainsim: blocked for the write, and taken back if it came, so that the write fails
  // with EPIPE. The push then counts as written and unconfirmed: the enqueuer's exit (or,
  // should it live on with its input closed, the confirm wait) fails the run, saying why.
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  std::size_t done = 0;
  bool broken = false;
  while (done < text.size()) {
    const ssize_t n = write(enqueuer_in_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) {
      broken = true;
      break;
    }
    if (n <= 0) {
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      fail("enqueuer", with_output(fmt::format("cannot write to the enqueuer `{}` ({})",
                                               options_.enqueue.front(), strerror(errno)),
                                   read_file(log_file("enqueue"))));
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  if (broken) {
    const timespec now{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &now);  // the SIGPIPE it raised, if any
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  ++written_;
}

void RealSystem::inspect(std::function<void(std::string, bool)> done) {
  const std::string output = log_file(fmt::format("inspect-{}", ++inspections_run_));
  int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    done(fmt::format("cannot write {}: {}", output, strerror(errno)), false);
    return;
  }
  SpawnSpec spec{options_.inspect, options_.env, log_file("inspect")};
  spec.stdout_fd = fd;
  pid_t pid = -1;
  try {
    pid = spawn(spec);
  } catch (const std::exception& e) {
    close(fd);
    done(e.what(), false);
    return;
  }
  close(fd);
  const Duration wait = inspect_wait();
  inspections_[pid] = {output, wait, std::move(done)};
  reaper_.watch(pid);
  rt_.schedule(rt_.now() + wait, Priority::kBackend, this, kInspect,
               static_cast<std::uint64_t>(pid));
}

void RealSystem::on_timer(std::uint32_t tag, std::uint64_t arg) {
  if (tag == kInspect) {
    const auto it = inspections_.find(static_cast<pid_t>(arg));
    if (it == inspections_.end()) return;  // it answered
    ::kill(-it->first, SIGKILL);           // its group; reaped as any other
    InspectorRun expired = std::move(it->second);
    inspections_.erase(it);
    // (A broker in trouble is named by fail(), which the run's end calls with this.)
    expired.done(
        with_output(fmt::format("it did not answer within {}", format_duration(expired.wait)),
                    read_file(log_file("inspect"))),
        false);
    return;
  }
  read_events();
  watch();
  if (!stopping_) rt_.schedule(rt_.now() + kEventsPoll, Priority::kBackend, this, kPoll);
}

std::string RealSystem::broker_trouble(bool* dead) const {
  if (dead) *dead = false;
  if (options_.broker_pid <= 0) return "";
  siginfo_t info{};
  // WNOWAIT: the Broker reaps its own process.
  if (waitid(P_PID, options_.broker_pid, &info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid == 0) {
    return "";
  }
  if (info.si_code == CLD_STOPPED) {
    return fmt::format("is stopped ({})", signal_name(info.si_status));
  }
  if (dead) *dead = true;
  return info.si_code == CLD_EXITED ? fmt::format("exited (code {})", info.si_status)
                                    : fmt::format("died ({})", signal_name(info.si_status));
}

void RealSystem::watch() {
  if (failure_) return;
  bool dead = false;
  const std::string trouble = broker_trouble(&dead);
  if (trouble.empty()) {
    broker_stopped_since_ = -1;
  } else if (!dead && broker_stopped_since_ < 0) {
    broker_stopped_since_ = rt_.now();
  }
  if (dead) {
    // Its log says why, when it could say anything (not after a SIGKILL).
    return fail("broker", with_output(fmt::format("the broker {} {} at {}", options_.broker_name,
                                                  trouble, format_seconds(to_seconds(rt_.now()))),
                                      read_file(options_.broker_log)));
  }
  if (broker_stopped_since_ >= 0 && rt_.now() - broker_stopped_since_ > options_.confirm_wait) {
    return fail("broker",
                fmt::format("the broker {} {} since {}, for more than {}", options_.broker_name,
                            trouble, format_seconds(to_seconds(broker_stopped_since_)),
                            format_duration(options_.confirm_wait)));
  }
  if (unconfirmed() > 0 && rt_.now() - last_confirm_progress_ > options_.confirm_wait) {
    fail("enqueuer",
         with_output(fmt::format("the enqueuer `{}` has confirmed none of the last {} pushes "
                                 "since {}, for more than {}",
                                 options_.enqueue.front(), unconfirmed(),
                                 format_seconds(to_seconds(last_confirm_progress_)),
                                 format_duration(options_.confirm_wait)),
                     read_file(log_file("enqueue"))));
  }
}

void RealSystem::read_events() {
  std::ifstream in(options_.events, std::ios::binary);
  if (!in) return;  // nobody has written one yet
  in.seekg(static_cast<std::streamoff>(events_offset_));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (chunk.empty()) return;
  events_offset_ += chunk.size();
  partial_ += chunk;
  std::size_t begin = 0;
  bool any = false;
  for (std::size_t nl; (nl = partial_.find('\n', begin)) != std::string::npos; begin = nl + 1) {
    // Bad lines are the final reading's to report (io/adapter_events.h); skip them here.
    const nlohmann::json e =
        nlohmann::json::parse(partial_.substr(begin, nl - begin), nullptr, false);
    if (!e.is_object()) continue;
    const std::string kind = e.value("event", "");
    const std::string worker = e.value("worker", "");
    const pid_t pid = e.value("pid", 0);
    int pod = -1;
    if (worker.rfind("pod-", 0) == 0) pod = std::atoi(worker.c_str() + 4);
    if (pod < 0 || static_cast<std::size_t>(pod) >= current_.size() || !current_[pod]) continue;
    RealWorker& w = *current_[pod];
    if (w.worker_pid() > 0 && w.worker_pid() != pid) continue;  // an earlier process's
    if (kind == "start" || kind == "end") {
      const auto key = std::make_tuple(pid, e.value("run", std::int64_t{0}),
                                       e.value("job", std::uint64_t{0}), e.value("attempt", 0));
      if (kind == "start") {
        open_[key] = {e.value("t", 0.0), e.value("child", pid_t{0})};
      } else {
        open_.erase(key);
      }
    }
    w.event(kind, pid);
    any = true;
  }
  partial_.erase(0, begin);
  if (any) changed();
}

void RealSystem::on_exit(pid_t pid, ChildExit how) {
  if (pid == enqueuer_) {
    enqueuer_ = -1;
    if (!stopping_ && (how.signalled || how.code != 0 || enqueuer_in_ >= 0)) {
      fail("enqueuer",
           with_output(fmt::format("the enqueuer `{}` {} at {} while jobs were still to come",
                                   options_.enqueue.front(),
                                   how.signalled ? fmt::format("died ({})", signal_name(how.code))
                                                 : fmt::format("exited (code {})", how.code),
                                   format_seconds(to_seconds(rt_.now()))),
                       read_file(log_file("enqueue"))));
    }
    return;
  }
  if (auto it = inspections_.find(pid); it != inspections_.end()) {
    InspectorRun ended = std::move(it->second);
    inspections_.erase(it);
    const bool ok = !how.signalled && how.code == 0;
    ended.done(ok ? read_file(ended.output)
                  : with_output(how.signalled ? fmt::format("it died ({})", signal_name(how.code))
                                              : fmt::format("it exited (code {})", how.code),
                                read_file(log_file("inspect"))),
               ok);
    return;
  }
  const auto it = by_pid_.find(pid);
  if (it == by_pid_.end()) return;
  RealWorker& w = *it->second;
  read_events();  // whatever it wrote before it ended
  for (auto o = open_.begin(); o != open_.end();) {
    const pid_t p = std::get<0>(o->first);
    o = (p == w.pid() || p == w.worker_pid()) ? open_.erase(o) : std::next(o);
  }
  if (w.worker_pid() > 0 && w.worker_pid() != w.pid()) {
    endings_.push_back({w.worker_pid(), endings_.back().at, how.signalled});
  }
  w.ended(how);
  changed();
}

bool RealSystem::kill_longest_child(RealWorker& worker) {
  auto victim = open_.end();
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (std::get<0>(it->first) != worker.worker_pid() || it->second.child <= 0) continue;
    if (victim == open_.end() || it->second.started < victim->second.started) victim = it;
  }
  if (victim == open_.end()) return false;
  const pid_t child = victim->second.child;
  // Only the worker's own child: a pid that ended and was reused belongs to someone else.
  if (parent_of(child) != worker.worker_pid()) return false;
  ::kill(child, SIGKILL);
  endings_.push_back({child, unix_now(), true});
  open_.erase(victim);
  changed();
  return true;
}

void RealSystem::fail(std::string component, std::string why) {
  if (failure_) return;
  // A broker in trouble is the cause of what its clients do.
  bool dead = false;
  const std::string trouble = component == "broker" ? "" : broker_trouble(&dead);
  if (dead) {
    why = fmt::format("the broker {} {}; then {}", options_.broker_name, trouble, why);
    component = "broker";
  } else if (!trouble.empty()) {
    why = fmt::format(
        "the broker {} {} since {}; then {}", options_.broker_name, trouble,
        format_seconds(to_seconds(broker_stopped_since_ >= 0 ? broker_stopped_since_ : rt_.now())),
        why);
    component = "broker";
  }
  failure_ = RealFailure{std::move(component), rt_.now(), std::move(why)};
  changed();
}

int RealSystem::shut_down() {
  stopping_ = true;
  if (enqueuer_in_ >= 0) {
    close(enqueuer_in_);
    enqueuer_in_ = -1;
  }
  if (enqueuer_out_) {
    boost::system::error_code ignored;
    enqueuer_out_->close(ignored);
  }
  int workers = 0;
  for (const auto& [pid, w] : by_pid_) {
    if (pid == w->pid() && w->state() != WorkerState::kStopped) ++workers;
  }
  reaper_.kill_all();
  return workers;
}

}  // namespace drainsim
