// Simulated time. All of drainsim measures time as an integer count of microseconds, so
// that runs are exact and replay byte for byte; seconds as doubles appear only in output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace drainsim {

using Time = std::int64_t;      // microseconds since the start of the run
using Duration = std::int64_t;  // microseconds

inline constexpr Duration kMicrosecond = 1;
inline constexpr Duration kMillisecond = 1000;
inline constexpr Duration kSecond = 1000 * kMillisecond;
inline constexpr Duration kMinute = 60 * kSecond;
inline constexpr Duration kHour = 60 * kMinute;
inline constexpr Time kNever = INT64_MAX;

inline double to_seconds(Duration d) { return static_cast<double>(d) / kSecond; }

// Rounds to the nearest microsecond. REQUIRES: s is finite and within ±292,000 years.
inline Duration from_seconds(double s) {
  return static_cast<Duration>(s * kSecond + (s >= 0 ? 0.5 : -0.5));
}

// Parses Go/Kubernetes-style durations: one or more <number><unit> terms with units
// us (or µs), ms, s, m, h, e.g. "250ms", "25s", "1m30s", "1.5h". A bare "0" is zero.
// Returns nullopt for anything else, including negative values and sub-microsecond
// precision.
std::optional<Duration> parse_duration(std::string_view text);

// The shortest exact rendering in the same syntax: 90s -> "1m30s", 250ms -> "250ms".
std::string format_duration(Duration d);

// A measured duration in seconds as a person reads it: rounded to the millisecond, then
// written as format_duration does ("32s", "3m20s", "189.455s"); "inf" when not finite.
std::string format_seconds(double seconds);

// A grace period is a Duration, or kNever for "forever": a worker that waits for its jobs
// however long they take. Wherever a grace crosses a boundary as text — a scenario, a
// worker program's environment, an adapter's argv, a snippet, a report — it is written by
// format_grace and read by parse_grace, so that "forever" stays "forever" and is never a
// large number that a scale or a sum could overflow.
inline constexpr std::string_view kForever = "forever";

// "forever" is kNever; anything else as parse_duration.
std::optional<Duration> parse_grace(std::string_view text);

// "forever" for kNever; format_duration otherwise.
std::string format_grace(Duration d);

// "forever" for kNever; `finite(d)` otherwise (a grace in another unit or scale).
template <class Finite>
std::string format_grace(Duration d, Finite&& finite) {
  return d == kNever ? std::string(kForever) : std::string(finite(d));
}

}  // namespace drainsim
