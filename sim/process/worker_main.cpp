// drainsim-worker: a real worker process for the process engine. WorkerCore (the OJS
// graceful-shutdown state machine) on Boost.Asio, real signals through asio::signal_set,
// and the worker endpoints of docs/worker-protocol.md over HTTP. Configured by the
// environment (OJS_URL, OJS_WORKER_ID, OJS_QUEUES, OJS_CONCURRENCY,
// OJS_SHUTDOWN_GRACE_PERIOD, OJS_HEARTBEAT_INTERVAL, OJS_POLL_INTERVAL).
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <future>
#include <stdexcept>

#include <boost/asio/signal_set.hpp>

#include "engine/asio_runtime.h"
#include "process/http_worker.h"

int main() {
  using namespace drainsim;
  HttpWorkerConfig config;
  try {
    config = worker_config_from_env([](const char* name) { return std::getenv(name); });
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "drainsim-worker: %s\n", e.what());
    return 2;
  }
  AsioRuntime asio(0, 1.0, 2);
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  // Installed before any thread runs, so TSTP never stops the process.
  boost::asio::signal_set signals(asio.context(), SIGTERM, SIGINT, SIGTSTP);
  signals.add(SIGCONT);
  std::promise<int> exited;
  HttpWorker worker(*rt, asio.context(), config, [&](int code) { exited.set_value(code); });
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
  return code;
}
