#include "model/scenario.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace drainsim {

Duration pre_stop_time(const PreStop& p) {
  switch (p.kind) {
    case PreStop::Kind::kNone:
      return 0;
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      return p.duration;
    case PreStop::Kind::kQuietThenWait:
      return p.timeout;
  }
  return 0;
}

std::string pre_stop_text(const PreStop& p) {
  switch (p.kind) {
    case PreStop::Kind::kNone:
      return "none";
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      return fmt::format("{} {}", names(p.kind)[static_cast<std::size_t>(p.kind)],
                         format_duration(p.duration));
    case PreStop::Kind::kQuietThenWait:
      return fmt::format("quiet_then_wait (timeout {})", format_duration(p.timeout));
  }
  return "none";
}

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

}  // namespace drainsim
