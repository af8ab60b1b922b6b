#include "process/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "base/parse.h"

namespace drainsim {

namespace {

// How deep a tree of leftovers is killed at once (each level comes to drainsim when the
// one above it dies); deeper ones wait for the next SIGCHLD.
constexpr int kMaxLevels = 64;

ChildExit decode(int status) {
  if (WIFSIGNALED(status)) return ChildExit{true, WTERMSIG(status)};
  return ChildExit{false, WIFEXITED(status) ? WEXITSTATUS(status) : 0};
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Every child spawn() started and not yet known to be reaped. Held across fork(), so
// that a Reaper that looks for leftovers never takes a child just spawned for one.
std::mutex& spawn_mutex() {
  static std::mutex m;
  return m;
}
std::set<pid_t>& spawned() {
  static std::set<pid_t> s;
  return s;
}

// Adopting Reapers alive: drainsim is a subreaper while there is one.
int adopting = 0;

}  // namespace

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  while (const dirent* entry = readdir(proc)) {
    const std::optional<pid_t> pid = parse_number<pid_t>(entry->d_name);
    if (!pid) continue;
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so read after the
    // last ')'.
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", *pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    const char* close_paren = std::strrchr(buf, ')');
    char state = 0;
    int ppid = 0;
    if (close_paren != nullptr && std::sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2 &&
        ppid == parent) {
      out.push_back(*pid);
    }
  }
  closedir(proc);
  return out;
}

pid_t spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) throw std::runtime_error("spawn: no program");
  // Everything the child needs is prepared before fork(): between fork() and exec()
  // only async-signal-safe calls are allowed in a multi-threaded process.
  std::vector<std::string> argv = spec.argv, env = spec.env;
  std::vector<char*> argp = pointers(argv), envp = pointers(env);
  const std::string output = spec.output.empty() ? "/dev/null" : spec.output;
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("spawn {}: pipe: {}", spec.argv[0], strerror(errno)));
  }
  const pid_t parent = getpid();
  std::unique_lock registry(spawn_mutex());
  const pid_t pid = fork();
  if (pid < 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    throw std::runtime_error(fmt::format("spawn {}: fork: {}", spec.argv[0], strerror(errno)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    if (spec.subreaper) prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (spec.batch) {
      const sched_param none{};
      sched_setscheduler(0, SCHED_BATCH, &none);  // a plain syscall; allowed unprivileged
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const int fd = spec.output_fd >= 0 ? dup(spec.output_fd)
                                       : open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    if (spec.stdout_fd >= 0) dup2(spec.stdout_fd, 1);
    const int in = spec.stdin_fd >= 0 ? spec.stdin_fd : open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    execvpe(argp[0], argp.data(), envp.data());
    const int e = errno;
    ssize_t ignored = write(err_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before anyone signals it
  spawned().insert(pid);
  registry.unlock();
  close(err_pipe[1]);
  int e = 0;
  const ssize_t n = read(err_pipe[0], &e, sizeof e);
  close(err_pipe[0]);
  if (n == sizeof e) {
    waitpid(pid, nullptr, 0);
    {
      const std::lock_guard lock(spawn_mutex());
      spawned().erase(pid);
    }
    throw std::runtime_error(fmt::format("cannot run {}: {}", spec.argv[0], strerror(e)));
  }
  return pid;
}

std::string shell_command_error(const std::string& command) {
  if (command.find_first_not_of(" \t\n") == std::string::npos) {
    return "an empty command: expected a shell command line that runs a worker";
  }
  // sh -n reads the command without running any of it.
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";  // cannot check: the run will tell
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  std::string script = "exec " + command;
  char sh[] = "sh", n[] = "-n", c[] = "-c";
  char* argv[] = {sh, n, c, script.data(), nullptr};
  pid_t pid = -1;
  const int e = posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string said;
  char buffer[512];
  for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || said.size() > 4096) break;
    said.append(buffer, static_cast<std::size_t>(got));
  }
  close(out[0]);
  if (e != 0) return "";
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  if (const std::size_t nl = said.rfind('\n'); nl != std::string::npos) said.erase(0, nl + 1);
  return fmt::format("/bin/sh cannot parse it ({})", said.empty() ? "no reason given" : said);
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> pid1_shell_argv(const std::string& command) {
  return {"/bin/sh", "-c", "trap : TERM INT QUIT HUP TSTP CONT; " + command + "; exit $?"};
}

int posix_signal(Signal s) {
  switch (s) {
    case Signal::kTerm:
      return SIGTERM;
    case Signal::kInt:
      return SIGINT;
    case Signal::kTstp:
      return SIGTSTP;
    case Signal::kCont:
      return SIGCONT;
    case Signal::kKill:
      return SIGKILL;
    case Signal::kQuit:
      return SIGQUIT;
  }
  return SIGKILL;
}

void deliver_signal(pid_t child, pid_t worker, Signal signal, SignalTarget target) {
  if (child <= 0) return;
  const int number = posix_signal(signal);
  if (target == SignalTarget::kPid1) {
    kill(signal == Signal::kKill ? -child : child, number);  // a container kill takes it all
  } else {
    kill(worker > 0 ? worker : child, number);
  }
}

Reaper::Reaper(boost::asio::any_io_executor executor, OnExit on_exit, bool adopt)
    : sigchld_(executor, SIGCHLD), on_exit_(std::move(on_exit)), adopt_(adopt) {
  if (adopt_) {
    const std::lock_guard lock(spawn_mutex());
    if (adopting++ == 0) prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  arm();
}

Reaper::~Reaper() {
  boost::system::error_code ignored;
  sigchld_.cancel(ignored);
  kill_all();
  if (adopt_) {
    const std::lock_guard lock(spawn_mutex());
    if (--adopting == 0) prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
}

void Reaper::kill_leftovers(int rounds) {
  const std::lock_guard registry(spawn_mutex());
  std::set<pid_t>& ours = spawned();
  for (int round = 0; round < rounds; ++round) {
    std::vector<pid_t> leftovers;
    std::set<pid_t> children;
    for (const pid_t child : children_of(getpid())) {
      children.insert(child);
      if (!ours.contains(child)) leftovers.push_back(child);
    }
    // A pid spawn() started that is no longer a child was reaped by its owner.
    std::erase_if(ours, [&](pid_t p) { return !children.contains(p); });
    if (leftovers.empty()) return;
    for (const pid_t p : leftovers) {
      kill(p, SIGKILL);
      kill(-p, SIGKILL);  // its group, when it leads one (a new session does)
    }
    for (const pid_t p : leftovers) {
      while (waitpid(p, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    leftovers_killed_ += static_cast<int>(leftovers.size());
  }
}

void Reaper::watch(pid_t pid) {
  {
    std::lock_guard lock(mu_);
    live_.push_back(pid);
  }
  reap();  // it may have ended already, its SIGCHLD consumed before it was watched
}

void Reaper::arm() {
  sigchld_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;  // cancelled: the reaper is going away
    reap();
    arm();
  });
}

void Reaper::reap() {
  std::vector<std::pair<pid_t, ChildExit>> ended;
  {
    std::lock_guard lock(mu_);
    for (auto it = live_.begin(); it != live_.end();) {
      int status = 0;
      if (waitpid(*it, &status, WNOHANG) == *it) {
        // The container's PID 1 is gone, and everything else in it goes too.
        kill(-*it, SIGKILL);
        ended.emplace_back(*it, decode(status));
        it = live_.erase(it);
      } else {
        ++it;
      }
    }
    // Its descendants in other groups came to drainsim when it died (or, a leftover
    // exiting by itself, wait to be reaped).
    if (adopt_) kill_leftovers(kMaxLevels);
  }
  for (const auto& [pid, how] : ended) on_exit_(pid, how);
}

int Reaper::kill_all() {
  std::lock_guard lock(mu_);
  const int count = static_cast<int>(live_.size());
  for (pid_t pid : live_) kill(-pid, SIGKILL);
  for (pid_t pid : live_) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  live_.clear();
  if (adopt_) kill_leftovers(kMaxLevels);
  return count;
}

}  // namespace drainsim
