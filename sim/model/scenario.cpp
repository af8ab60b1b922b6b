#include "model/scenario.h"

#include <cmath>
#include <cstdint>

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
