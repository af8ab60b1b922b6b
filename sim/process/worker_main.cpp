// drainsim-worker: a real worker process for the process engine. WorkerCore (the OJS
// graceful-shutdown state machine) on Boost.Asio, real signals through asio::signal_set,
// and the worker endpoints of docs/worker-protocol.md over HTTP. Configured by the
// environment (OJS_URL, OJS_WORKER_ID, OJS_QUEUES, OJS_CONCURRENCY,
// OJS_SHUTDOWN_GRACE_PERIOD, OJS_HEARTBEAT_INTERVAL, OJS_POLL_INTERVAL). Takes no
// arguments but --help and --version; any other is exit 2.
#include <signal.h>

#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>

#include <boost/asio/signal_set.hpp>

#include "engine/asio_runtime.h"
#include "process/http_worker.h"

namespace {

// What --help prints (help2man makes the man page from it).
constexpr const char* kHelp = R"(drainsim-worker: a worker process for drainsim's process engine
Usage: drainsim-worker [--help] [--version]

drainsim run --engine process starts one in every pod. It fetches jobs over the OJS HTTP
binding (docs/worker-protocol.md) and runs them; SIGTSTP quiets it (no more fetches),
SIGCONT resumes it, SIGTERM or SIGINT drains it for its grace period, a second one stops
it at once. It is configured by its environment only.

Options:
  -h,--help                   Print this help message and exit
  --version                   Display program version information and exit

Environment:
  OJS_URL                     The backend, http://HOST:PORT (required)
  OJS_WORKER_ID               The worker's id (required)
  OJS_QUEUES                  Queues to fetch from, comma-separated, in priority order
  OJS_CONCURRENCY             Job slots, 1 to 10000
  OJS_SHUTDOWN_GRACE_PERIOD   How long to drain after TERM or INT (e.g. 600ms, 1.5s)
  OJS_HEARTBEAT_INTERVAL      How often to heartbeat
  OJS_POLL_INTERVAL           How often an idle worker fetches
  DRAINSIM_PROFILE            The profile whose shutdown behaviour to follow
  DRAINSIM_PROFILE_OPTIONS    That profile's options: NAME=VALUE,...
  DRAINSIM_JOB_BODY           sleep (default), spin or timer
  DRAINSIM_PID1               1: stand for the container's PID 1 (unhandled TERM/INT ignored)
  DRAINSIM_TIME_SCALE         Simulated seconds per real second: the profile's own times
                              (drain polls, abort, ...) are divided by it
  DRAINSIM_STARTUP            The program's start-up to wait out before registering (e.g. 1.2s);
                              a signal before then takes its default action

Exit codes: 0 stopped, 1 forced to stop (a second TERM or INT), 2 a bad environment or
argument, 3 gave up on an unreachable backend.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace drainsim;
  if (argc > 1) {
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
      std::printf("drainsim-worker %s\n", DRAINSIM_VERSION);
      return 0;
    }
    std::fprintf(stderr,
                 "drainsim-worker: unexpected argument \"%s\": it takes none but --help and "
                 "--version (its configuration is its environment)\n",
                 argv[1]);
    return 2;
  }
  HttpWorkerConfig config;
  try {
    config = worker_config_from_env([](const char* name) { return std::getenv(name); });
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "drainsim-worker: %s\n", e.what());
    return 2;
  }
  // One thread: a worker's strands take turns anyway, and a second thread only added a
  // wake-up between the two per request (issue 39: 100 workers on 2 cores).
  AsioRuntime asio(0, 1.0, 1);
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  // Installed before any thread runs, so TSTP never stops the process.
  boost::asio::signal_set signals(asio.context(), SIGTERM, SIGINT, SIGTSTP);
  signals.add(SIGCONT);
  std::promise<int> exited;
  HttpWorker worker(*rt, config, [&](int code) { exited.set_value(code); });
  std::function<void()> arm = [&] {
    signals.async_wait([&](const boost::system::error_code& ec, int number) {
      if (ec) return;
      rt->post([&worker, number] { worker.on_posix_signal(number); });
      arm();
    });
  };
  arm();
  asio.start();
  rt->post([&] { worker.start(); });
  const int code = exited.get_future().get();
  boost::system::error_code ignored;
  signals.cancel(ignored);
  asio.stop();
  if (code > 128 && !config.pid1) {  // it kills itself with that signal (exits_by_signal)
    signals.clear(ignored);
    std::signal(code - 128, SIG_DFL);
    std::raise(code - 128);
  }
  return code > 128 ? 0 : code;  // PID 1 survives its own signal
}
