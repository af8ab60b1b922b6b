// Simulated times as the results document writes them: to_seconds(t) as nlohmann's dump
// writes a double (Grisu2: digits that read back as the same double, "0.0" for zero,
// "2.0" for whole seconds, "1e-06" below a millisecond), byte for byte, several times
// faster than Grisu2 for the times a run has.
#pragma once

#include "base/duration.h"

namespace drainsim {

// The most write_json_seconds writes.
inline constexpr int kMaxJsonSeconds = 32;

// Writes to_seconds(t) at `p` as nlohmann::json(to_seconds(t)).dump() does; returns the
// end. REQUIRES: room for kMaxJsonSeconds bytes at `p`.
char* write_json_seconds(char* p, Time t);

}  // namespace drainsim
