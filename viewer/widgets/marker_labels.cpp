#include "widgets/marker_labels.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

namespace drainsim::viewer {

std::vector<LabelPlace> place_labels(const std::vector<LabelWish>& wishes, int lines, int right) {
  std::vector<LabelPlace> out(wishes.size());
  std::vector<int> order(wishes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return wishes[a].x < wishes[b].x; });
  // Per line, the first free column.
  std::vector<int> free_from(static_cast<std::size_t>(std::max(1, lines)), INT_MIN);
  for (int i : order) {
    const LabelWish& w = wishes[i];
    const int left = static_cast<int>(std::lround(w.x)) + kLabelOffset;
    for (const bool abbreviated : {false, true}) {
      const int width = abbreviated ? w.short_width : w.full_width;
      if (left + width > right) continue;
      for (std::size_t line = 0; line < free_from.size(); ++line) {
        if (left < free_from[line]) continue;
        out[i] = LabelPlace{true, abbreviated, static_cast<int>(line), left, width};
        free_from[line] = left + width + kLabelGap;
        break;
      }
      if (out[i].shown) break;
    }
  }
  return out;
}

}  // namespace drainsim::viewer
