// What reaches a worker from outside: the POSIX signals a platform or an operator sends
// (Signal, in base/signal.h), and the directives a backend sends in a heartbeat reply
// (Faktory's quiet/terminate, OJS worker states).
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "base/names.h"
#include "base/signal.h"  // Signal

namespace drainsim {

// The state a heartbeat reports or a backend asks for.
enum class Directive { kRunning, kQuiet, kTerminate };
constexpr std::array<std::string_view, 3> names(Directive) {
  return {"running", "quiet", "terminate"};
}
inline const char* to_string(Directive d) { return name_of(d).data(); }
inline std::optional<Directive> parse_directive(std::string_view text) {
  return from_name<Directive>(text);
}

}  // namespace drainsim
