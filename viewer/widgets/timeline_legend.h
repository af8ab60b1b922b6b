// The timeline's legend along the bottom, below its rows: outcomes, the grace deadline,
// preStop, deploy and chaos shading on the first line, pod states on the second. GUI thread
// only.
#pragma once

#include <utility>
#include <vector>

#include <QRect>

#include "reader/results_reader.h"
#include "widgets/timeline_layout.h"

QT_BEGIN_NAMESPACE
class QPainter;
QT_END_NAMESPACE

namespace drainsim::viewer {

// Draws the legend in `layout`'s legend band (from rows_bottom() down) and returns where
// each pod state's swatch went, in PodState order.
std::vector<std::pair<PodState, QRect>> paint_timeline_legend(QPainter& p,
                                                              const TimelineLayout& layout);

}  // namespace drainsim::viewer
