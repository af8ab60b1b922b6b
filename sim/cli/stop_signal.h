// Ctrl+C (and SIGTERM) for a command that stops cleanly: while a StopSignal is alive,
// SIGINT and SIGTERM set a flag that the work polls (stop_requested()) instead of killing
// the process; the handlers reset themselves, so a second signal kills at once. The
// previous dispositions come back when it goes. One at a time.
#pragma once

#include <csignal>

namespace drainsim::cli {

class StopSignal {
 public:
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  // True once SIGINT or SIGTERM arrived. Async-signal-safe to set, cheap to read.
  static bool stop_requested();

 private:
  struct sigaction previous_int_ = {};
  struct sigaction previous_term_ = {};
};

}  // namespace drainsim::cli
