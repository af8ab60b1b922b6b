#include "cli/stop_signal.h"

#include <atomic>

namespace drainsim::cli {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int) { g_stop.store(true); }

}  // namespace

StopSignal::StopSignal() {
  g_stop.store(false);
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_int_);
  sigaction(SIGTERM, &sa, &previous_term_);
}

StopSignal::~StopSignal() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

bool StopSignal::stop_requested() { return g_stop.load(std::memory_order_relaxed); }

}  // namespace drainsim::cli
