#include "base/byte_size.h"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/parse.h"

namespace drainsim {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 13> kUnits = {{
      {"KiB", kKiB},
      {"MiB", kMiB},
      {"GiB", kGiB},
      {"TiB", kTiB},
      {"KB", kKiB},
      {"MB", kMiB},
      {"GB", kGiB},
      {"TB", kTiB},
      {"K", kKiB},
      {"M", kMiB},
      {"G", kGiB},
      {"T", kTiB},
      {"B", 1},
  }};
  std::uint64_t unit = 1;
  for (const auto& [suffix, size] : kUnits) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      unit = size;
      break;
    }
  }
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) {
    return std::nullopt;  // no sign, no space, no "inf"
  }
  const std::optional<double> number = parse_number<double>(text);
  if (!number) return std::nullopt;
  const double bytes = std::floor(*number * static_cast<double>(unit));
  if (!(bytes >= 0) || bytes > 9.2e18) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string format_byte_size(double bytes) {
  static constexpr std::array<std::string_view, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (unit + 1 < kNames.size() && bytes >= 1024) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  // 3 significant digits, trailing zeros dropped: 1.5, 9.77, 38.0 -> 38.
  std::string digits = fmt::format("{:.{}f}", bytes, bytes >= 100 ? 0 : bytes >= 10 ? 1 : 2);
  if (digits.find('.') != std::string::npos) {
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return fmt::format("{} {}", digits, kNames[unit]);
}

}  // namespace drainsim
