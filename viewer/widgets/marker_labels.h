// Where the timeline writes the names of a lane's signal markers (TERM, KILL, OOM, ...) so
// that no two print over each other: each label wants to start just right of its marker;
// labels are placed in x order, each on the first of `lines` text lines where it clears the
// label before it, with its full text if that fits anywhere, else its abbreviation; a label
// that fits nowhere is dropped (the marker's tooltip has the full text). Pure function.
#pragma once

#include <vector>

namespace drainsim::viewer {

struct LabelWish {
  double x = 0;         // the marker's x
  int full_width = 0;   // px of the full text ("TERM (swallowed)")
  int short_width = 0;  // px of the abbreviation ("T")
};

struct LabelPlace {
  bool shown = false;
  bool abbreviated = false;
  int line = 0;  // 0: the first text line
  int left = 0;  // px; the label covers [left, left + width)
  int width = 0;
};

inline constexpr int kLabelOffset = 5;  // from the marker's x to its label
inline constexpr int kLabelGap = 2;     // at least this many px between two labels on a line

// REQUIRES: lines >= 1. Labels do not reach past `right`. One place per wish, same order.
std::vector<LabelPlace> place_labels(const std::vector<LabelWish>& wishes, int lines, int right);

}  // namespace drainsim::viewer
