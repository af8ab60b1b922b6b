// RealEnd: how a run on the real engine ends, on the models' strand: once the run is idle
// and the broker holds no work (asked of the inspector every 2 s while only the broker may
// hold any), at duration + settle, on a failure of the system's processes
// (RealSystem::failure: then once the broker has said where the jobs are, when it still
// can), or on SIGINT or SIGTERM. Its last inspection is the one the results use; when none
// could be had at the end, it is marked not taken, with why. Internal to run/.
#pragma once

#include <functional>
#include <future>
#include <string>
#include <utility>

#include "engine/asio_runtime.h"
#include "process/real_system.h"
#include "run/real_replay.h"

namespace drainsim {

class RealEnd final : public TimerTarget {
 public:
  // `idle`: nothing is left to happen on drainsim's side (arrivals, events, pods, attempts
  // open, pushes unconfirmed); `system` names the system in messages.
  RealEnd(StrandRuntime& rt, RealSystem& processes, std::function<bool()> idle, Time end,
          std::string system);

  // Arms the end timer.
  void start();
  // Ends the run if it is over (or asks the inspector whether it is).
  void check();
  // SIGINT or SIGTERM: the run ends once the inspector has given the broker's word on the
  // jobs (or at once if it is asked while one is under way); a second one ends it at once,
  // without that word.
  void interrupt();
  void on_timer(std::uint32_t, std::uint64_t) override { check(); }
  // Blocks until the run has ended: when, and whether early.
  std::pair<Time, bool> wait() { return done_.get_future().get(); }

  // The inspector's last answer. Not `{{}, ...}`: an empty brace list makes a JSON null,
  // which a second Ctrl+C (no answer at all) wrote as real.versions, against the schema.
  Inspection last{nlohmann::json::object(), {}, /*taken=*/false, "the broker was never asked"};
  bool interrupted = false;

 private:
  // `early`: only to see whether the broker is done; the run goes on if it is not.
  void inspect(bool early);
  void finish(bool early);
  // Ends the run without the broker's word on the jobs, `why` not.
  void finish_unasked(std::string why);

  StrandRuntime& rt_;
  RealSystem& processes_;
  std::function<bool()> idle_;
  Time end_;
  std::string system_;
  Time next_inspection_ = 0;
  bool inspecting_ = false;
  bool finished_ = false;
  std::promise<std::pair<Time, bool>> done_;
};

}  // namespace drainsim
