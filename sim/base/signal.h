// The POSIX signals a platform or an operator sends a worker, as the timeline names them
// ("SIGTERM"). Here, below the model, so that the viewer's reader (which may include only
// base/) spells them from the same table.
#pragma once

#include <array>
#include <string_view>

#include "base/names.h"

namespace drainsim {

enum class Signal { kTerm, kInt, kTstp, kCont, kKill, kQuit };
constexpr std::array<std::string_view, 6> names(Signal) {
  return {"SIGTERM", "SIGINT", "SIGTSTP", "SIGCONT", "SIGKILL", "SIGQUIT"};
}
inline const char* to_string(Signal s) { return name_of(s).data(); }

}  // namespace drainsim
