// The scenario's events (chaos, deploys, signals), each handed to the Platform at its time
// on the run's Runtime; every engine plays them through this one class.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/runtime.h"
#include "model/platform.h"
#include "model/scenario.h"

namespace drainsim {

class Script final : public TimerTarget {
 public:
  // Both must outlive the Script.
  Script(const Scenario& s, Platform& platform) : s_(s), platform_(platform) {}
  // Schedules every event at its `at`, in the scripted priority class.
  void start(Runtime& rt);
  // True once every event has been applied.
  bool done() const { return fired_ == s_.events.size(); }
  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  const Scenario& s_;
  Platform& platform_;
  std::size_t fired_ = 0;
};

}  // namespace drainsim
