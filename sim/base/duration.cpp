#include "base/duration.h"

#include <cmath>
#include <cstdlib>

namespace drainsim {

namespace {

// Units longest-suffix first so "ms" is not read as "m" followed by "s".
struct Unit {
  std::string_view name;
  Duration size;
};
constexpr Unit kUnits[] = {{"ms", kMillisecond}, {"us", kMicrosecond}, {"\xC2\xB5s", kMicrosecond},
                           {"h", kHour},         {"m", kMinute},       {"s", kSecond}};

}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  Duration total = 0;
  while (!text.empty()) {
    // Integer and fraction digits, kept as text so 0.1s is exact.
    std::size_t i = 0;
    std::int64_t whole = 0;
    bool digits = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      const int digit = text[i] - '0';
      if (whole > (INT64_MAX - digit) / 10) return std::nullopt;
      whole = whole * 10 + digit;
      digits = true;
      ++i;
    }
    std::string_view fraction;
    if (i < text.size() && text[i] == '.') {
      std::size_t start = ++i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      fraction = text.substr(start, i - start);
      digits = digits || !fraction.empty();
    }
    if (!digits) return std::nullopt;
    text.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(0, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) return std::nullopt;
    text.remove_prefix(unit->name.size());
    if (whole > INT64_MAX / unit->size) return std::nullopt;
    Duration term = whole * unit->size;
    Duration scale = unit->size;
    for (char c : fraction) {
      if (scale % 10 != 0) {
        if (c != '0') return std::nullopt;  // finer than a microsecond
        continue;
      }
      scale /= 10;
      if (term > INT64_MAX - (c - '0') * scale) return std::nullopt;
      term += (c - '0') * scale;
    }
    if (total > INT64_MAX - term) return std::nullopt;
    total += term;
  }
  return total;
}

std::optional<Duration> parse_grace(std::string_view text) {
  if (text == kForever) return kNever;
  return parse_duration(text);
}

std::string format_grace(Duration d) {
  return d == kNever ? std::string(kForever) : format_duration(d);
}

std::string format_duration(Duration d) {
  if (d == 0) return "0s";
  std::string out;
  if (d < 0) {
    out = "-";
    d = -d;
  }
  if (d % kMillisecond != 0) return out + std::to_string(d) + "us";
  if (d < kSecond || d % kSecond != 0) {
    if (d < kSecond) return out + std::to_string(d / kMillisecond) + "ms";
    // Seconds with a fraction: "1.5s".
    std::string frac = std::to_string(d % kSecond / kMillisecond);
    frac = std::string(3 - frac.size(), '0') + frac;
    while (frac.back() == '0') frac.pop_back();
    return out + std::to_string(d / kSecond) + "." + frac + "s";
  }
  Duration h = d / kHour, m = d % kHour / kMinute, s = d % kMinute / kSecond;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s) out += std::to_string(s) + "s";
  return out;
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds) || std::abs(seconds) > 1e12) return seconds < 0 ? "-inf" : "inf";
  return format_duration(static_cast<Duration>(std::llround(seconds * 1000)) * kMillisecond);
}

}  // namespace drainsim
