// A pod's state as the timeline draws it (results/README.md, "pod_states"). Here, below
// the model, so that the viewer's reader (which may include only base/) spells them from
// the same table.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/names.h"

namespace drainsim {

enum class PodState : std::uint8_t {
  kStarting,     // created or restarting, no worker yet
  kReady,        // worker running
  kQuiet,        // worker quiet (TSTP, directive, preStop)
  kDraining,     // worker draining after TERM/INT
  kTerminating,  // deleted, worker not yet draining (preStop running, TERM swallowed)
  kCrashed,      // process died outside a deletion; container restart pending
  kGone,
};
constexpr std::array<std::string_view, 7> names(PodState) {
  return {"starting", "ready", "quiet", "draining", "terminating", "crashed", "gone"};
}
inline const char* to_string(PodState v) { return name_of(v).data(); }

}  // namespace drainsim
