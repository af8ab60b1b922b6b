// Plain-text tables for the command line's reports (compare, tune): cells are UTF-8 text
// without wide characters. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/stats.h"
#include "model/metrics.h"

namespace drainsim {

// What a cell shows for a metric that no run had.
inline constexpr std::string_view kNoValue = "–";

// Display width: the number of code points.
std::size_t display_width(std::string_view s);

// Each column padded to its widest cell, two spaces apart; the first column left-aligned,
// the others right-aligned; every line ends with '\n'. Rows may be shorter than others.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

// A fraction as a percentage with 3 significant digits: 0.00125 -> "0.125%".
std::string percent_text(double fraction);

// "mean ±half" with `decimals` decimals, "(n=k)" added when only k of `runs` runs had the
// metric, kNoValue when none did.
std::string interval_cell(const Interval& v, int decimals, std::size_t runs);

// A metric's cell: interval_cell with the metric's decimals, a fraction as a percentage
// with 3 decimals ("0.104% ±0.021%").
std::string metric_cell(const Metric& m, const Interval& v, std::size_t runs);

}  // namespace drainsim
