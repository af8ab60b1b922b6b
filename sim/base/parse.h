// The one number parser: the whole text as a number of type T, or nullopt (empty text,
// trailing characters, out of range, or a float that is not finite). No locale, no
// leading '+' or spaces (std::from_chars).
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace drainsim {

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return std::nullopt;
  }
  return v;
}

// A version "MAJOR.MINOR" (a results file's schema_version), both whole numbers written
// in digits alone, as {major, minor}; nullopt otherwise.
inline std::optional<std::pair<int, int>> parse_version(std::string_view s) {
  const std::size_t dot = s.find('.');
  const auto digit = [&](std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  if (dot == std::string_view::npos || !digit(0) || !digit(dot + 1)) return std::nullopt;
  const std::optional<int> major = parse_number<int>(s.substr(0, dot));
  const std::optional<int> minor = parse_number<int>(s.substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{*major, *minor};
}

}  // namespace drainsim
