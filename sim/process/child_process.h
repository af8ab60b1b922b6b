// Real child processes for the process engine: spawn() starts a program in a process
// group of its own (so a container kill can take the whole group) that dies with the
// thread that spawned it (PR_SET_PDEATHSIG), and a Reaper collects their exit statuses
// with waitpid() when SIGCHLD arrives (and then kills what is left of the child's group,
// as a container's processes die with its PID 1), and kills and reaps whatever is left
// when it is destroyed, so no run leaves a process behind.
//
// A process group is not a process tree: a worker's child may start a session of its own
// (setsid, Python's start_new_session) or daemonize (fork twice). An adopting Reaper
// catches those with the kernel's subreaper mechanism (prctl(2), PR_SET_CHILD_SUBREAPER)
// at two levels, as containers do: each worker spawned with `subreaper` adopts the
// orphans of its own subtree while it lives (a container's PID 1), and drainsim adopts
// what is left when a worker dies, so every descendant of a worker stays a descendant of
// drainsim whatever session or group it moves to. Once a worker has ended, every child
// of drainsim that spawn() did not start is such a leftover: the Reaper kills and reaps
// it (and, when it dies, its own children come to drainsim in turn).
//
// Why not Boost.Process (v1 in Debian 12's Boost 1.74): its async exit notification
// runs its own SIGCHLD signal_set per io_context (sigchld_service), reaping only the
// children it launched, where this reaper must see every child and then kill what is
// left of the child's process group; and the process group and PR_SET_PDEATHSIG would
// need custom on_exec_setup handlers anyway. The fork/exec here is short and tested
// (process_engine_test, worker_signals_test).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/signal_set.hpp>

#include "model/process_handle.h"
#include "model/signals.h"

namespace drainsim {

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::vector<std::string> env;   // "NAME=value", the whole environment
  std::string output;             // file that gets the child's stdout and stderr (appended)
  int stdin_fd = -1;   // when set, the child's stdin (else /dev/null); the caller closes it
  int stdout_fd = -1;  // when set, the child's stdout (stderr still goes to `output`)
  int output_fd = -1;  // when set, the child's stdout and stderr instead of `output`
  // The child adopts its orphaned descendants (PR_SET_CHILD_SUBREAPER, kept across exec),
  // as a container's PID 1 does, so they stay in its subtree while it lives.
  bool subreaper = false;
  // The child runs under SCHED_BATCH (kept across exec, inherited by its children): a
  // wake-up of its does not preempt the task running, which finishes its turn first.
  // For the process engine's workers, which share the cores with drainsim's server as
  // they would not on a real fleet (issue 39).
  bool batch = false;
};

// Starts the child; throws std::runtime_error naming the program when it cannot.
pid_t spawn(const SpawnSpec& spec);

// `text` quoted for /bin/sh.
std::string shell_quote(const std::string& text);

// Why /bin/sh cannot run `command` as a command line (an empty command, or what `sh -n`
// says of its syntax, such as an unbalanced quote); empty when it can.
std::string shell_command_error(const std::string& command);

// The argv of a shell as a container's PID 1 that runs `command` (a shell command line):
// it neither dies of TERM, INT, QUIT, HUP, TSTP or CONT nor passes them on (a trap, unlike
// an ignored signal, is not inherited by the command), and exits with the command's code.
std::vector<std::string> pid1_shell_argv(const std::string& command);

// The POSIX number of `signal`.
int posix_signal(Signal signal);

// Sends `signal` as a container's runtime does: aimed at PID 1 it reaches `child` (the
// process spawned), a SIGKILL taking the child's whole process group; aimed at the worker
// it reaches `worker` (`child` when not known yet, <= 0).
void deliver_signal(pid_t child, pid_t worker, Signal signal, SignalTarget target);

// How a child ended, decoded from its wait status.
struct ChildExit {
  bool signalled = false;
  int code = 0;  // the exit code, or the signal number
};

// The children of process `parent` (from /proc), in no particular order.
std::vector<pid_t> children_of(pid_t parent);

class Reaper {
 public:
  using OnExit = std::function<void(pid_t, ChildExit)>;
  // `on_exit` runs on `executor` for each child that ends. With `adopt`, drainsim is a
  // subreaper while the Reaper lives (see the top of this file) and leftovers of ended
  // children are killed and reaped: after each reap and in kill_all(). REQUIRES: no other
  // code of this process forks children other than with spawn() meanwhile.
  Reaper(boost::asio::any_io_executor executor, OnExit on_exit, bool adopt = false);
  ~Reaper();  // kill_all()

  // Watches a child started with spawn(). Call on the reaper's executor.
  void watch(pid_t pid);
  // SIGKILLs the process group of every child not yet reaped, and reaps them, waiting;
  // with `adopt`, then the leftovers, until none is left. Thread-safe. Returns how many
  // watched children were still running.
  int kill_all();
  // With `adopt`: leftovers killed and reaped so far.
  int leftovers_killed() const { return leftovers_killed_.load(); }

 private:
  void arm();
  void reap();
  // Kills and reaps every child of this process that spawn() did not start, level by
  // level (a killed leftover's children come to this process in turn), for at most
  // `rounds` levels. REQUIRES: mu_ held.
  void kill_leftovers(int rounds);

  boost::asio::signal_set sigchld_;
  OnExit on_exit_;
  bool adopt_;
  std::mutex mu_;  // guards live_
  std::vector<pid_t> live_;
  std::atomic<int> leftovers_killed_{0};
};

}  // namespace drainsim
