#include "analysis/text_table.h"

#include <algorithm>

#include <fmt/format.h>

namespace drainsim {

std::size_t display_width(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string aligned_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string fill(widths[i] - display_width(row[i]), ' ');
      out += i == 0 ? row[i] + fill : "  " + fill + row[i];
    }
    out += '\n';
  }
  return out;
}

std::string interval_cell(const Interval& v, int decimals, std::size_t runs) {
  if (v.n == 0) return std::string(kNoValue);
  std::string s = fmt::format("{:.{}f} ±{:.{}f}", v.mean, decimals, v.half_width, decimals);
  if (v.n < runs) s += fmt::format(" (n={})", v.n);
  return s;
}

std::string percent_text(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

std::string metric_cell(const Metric& m, const Interval& v, std::size_t runs) {
  if (m.unit != Unit::kFraction || v.n == 0) return interval_cell(v, m.decimals(), runs);
  std::string s = fmt::format("{:.3f}% ±{:.3f}%", 100 * v.mean, 100 * v.half_width);
  if (v.n < runs) s += fmt::format(" (n={})", v.n);
  return s;
}

}  // namespace drainsim
