// The viewer's colours: one per attempt outcome, pod state and marker, shared by the views
// and by the tests that sample rendered pixels. Pod states are opaque and of hues the
// translucent deploy (blue) and chaos (pink) shading behind the lanes never takes: starting
// yellow, ready green, quiet teal, draining orange, terminating brick, crashed crimson, gone
// grey. Outcomes keep apart from the states a reader finds them over: an interrupted attempt
// is blue, not the draining pod's orange, and a killed one black (as the KILL marker), not
// the crimson of a crashed pod. Thread-safety: pure functions.
#pragma once

#include <QColor>

#include "reader/results_reader.h"

namespace drainsim::viewer {

QColor outcome_color(Outcome o);
QColor state_color(PodState s);
// The state's name in the legend ("preStop/terminating" for kTerminating).
const char* state_label(PodState s);
QColor marker_color(MarkerKind k);
inline QColor background_color() { return QColor(0xff, 0xff, 0xff); }
inline QColor deploy_window_color() { return QColor(0x4c, 0x9a, 0xff, 40); }
inline QColor chaos_window_color() { return QColor(0xe7, 0x29, 0x8a, 36); }
inline QColor grace_deadline_color() { return QColor(0xc0, 0x00, 0x00); }
inline QColor prestop_color() { return QColor(0x7b, 0x3f, 0xa0); }

// Which outcome shows when several share one pixel: the worst (killed > abandoned >
// interrupted > failed > cancelled > duplicate > completed).
int outcome_rank(Outcome o);

}  // namespace drainsim::viewer
