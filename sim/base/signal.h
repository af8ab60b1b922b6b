// The POSIX signals a platform or an operator sends a worker, as the timeline names them
// ("SIGTERM"). Here, below the model, so that the viewer's reader (which may include only
// base/) spells them from the same table.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "base/names.h"

namespace drainsim {

enum class Signal { kTerm, kInt, kTstp, kCont, kKill, kQuit };
constexpr std::array<std::string_view, 6> names(Signal) {
  return {"SIGTERM", "SIGINT", "SIGTSTP", "SIGCONT", "SIGKILL", "SIGQUIT"};
}
inline const char* to_string(Signal s) { return name_of(s).data(); }
// Its number on Linux (an exit by it is 128 + this).
constexpr int number(Signal s) {
  constexpr std::array<int, 6> numbers = {15, 2, 20, 18, 9, 3};
  return numbers[static_cast<std::size_t>(s)];
}

}  // namespace drainsim
