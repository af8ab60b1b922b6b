// PROVISIONAL: replaced by the backend-mechanisms branch on merge.
#pragma once

#include <cstdint>

#include "duration.h"

namespace drainsim {

struct LeaseExpiry {
  bool enabled = true;
  bool renewed_by_heartbeat = true;
  Duration check_interval = 0;
  enum class Fate : std::uint8_t { kRequeue, kRetry, kStall };
  Fate fate = Fate::kRequeue;
  bool counts_attempt = true;
  int max_stalls = 1;
};
struct Rescuer {
  bool enabled = false;
  Duration interval = 30 * kSecond;
  Duration after = kHour;
  bool backoff = false;
};
enum class FetchMode : std::uint8_t { kReliable, kAtMostOnce, kPrivateList };
struct BackendMechanisms {
  bool heartbeat_detection = true;
  LeaseExpiry lease;
  Rescuer rescuer;
  FetchMode fetch = FetchMode::kReliable;
  Duration cleanup_interval = kMinute;
  Duration process_ttl = 60 * kSecond;
};

}  // namespace drainsim
