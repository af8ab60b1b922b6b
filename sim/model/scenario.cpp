#include "model/scenario.h"

#include <cmath>
#include <cstdint>

namespace drainsim {

int Amount::resolve(int replicas, bool round_up) const {
  if (!percent) return static_cast<int>(value);
  // Whole percentages (the only kind the loader accepts) are resolved exactly.
  if (value == std::floor(value)) {
    const std::int64_t scaled =
        static_cast<std::int64_t>(replicas) * static_cast<std::int64_t>(value);
    const std::int64_t pods = round_up ? (scaled + 99) / 100 : scaled / 100;
    return static_cast<int>(pods);
  }
  const double pods = replicas * value / 100;
  return static_cast<int>(round_up ? std::ceil(pods) : std::floor(pods));
}

const char* to_string(Signal s) {
  switch (s) {
    case Signal::kTerm:
      return "SIGTERM";
    case Signal::kInt:
      return "SIGINT";
    case Signal::kTstp:
      return "SIGTSTP";
    case Signal::kCont:
      return "SIGCONT";
    case Signal::kKill:
      return "SIGKILL";
    case Signal::kQuit:
      return "SIGQUIT";
  }
  return "SIG?";
}

const char* to_string(Directive d) {
  switch (d) {
    case Directive::kRunning:
      return "running";
    case Directive::kQuiet:
      return "quiet";
    case Directive::kTerminate:
      return "terminate";
  }
  return "?";
}

std::optional<Directive> parse_directive(std::string_view text) {
  for (Directive d : {Directive::kRunning, Directive::kQuiet, Directive::kTerminate}) {
    if (text == to_string(d)) return d;
  }
  return std::nullopt;
}

}  // namespace drainsim
