// Which pods share a timeline row. In "replica rows" a replacement pod continues its
// predecessor's row, so a fleet of 100 replicas has 100 rows however many rollouts replaced
// its pods; in "pod lanes" every pod has a row of its own. Pure functions of the Lane fields
// the reader gives (created, deleted, gone, generation, tracks), no Qt, no drawing.
//
// Assignment, pods taken by creation time (ties by pod index):
//   1. a row whose last pod was deleted (or, never deleted, was gone) at or before the new
//      pod's creation: the earliest such, ties by row: a plain replacement (a pod deleted and
//      recreated, a rollout with maxSurge 0);
//   2. else a row whose last pod is of an older generation and is deleted after the new
//      pod's creation, the one deleted first: a surge pod of a rollout, which the old pod's
//      deletion is waiting for (same-generation pods, e.g. a scale-up, never claim a row);
//   3. else a new row.
//
// Overlap (a surge pod starting while its predecessor drains) is drawn so that the old pod's
// drain stays whole: the predecessor owns the row's band strip and slot tracks until it is
// gone (or, never gone, until the run ends); the successor owns them from then on. Before
// that, from its creation, the successor is shown on the row's thin "surge strip" under the
// band strip: its states, with its attempts on top merged into that one strip (the worst
// outcome per pixel). RowPod::from/to is the main ownership, [created, from) the strip part.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "reader/results_reader.h"

namespace drainsim::viewer {

enum class RowMode { kReplica, kPod };

// Replica rows are the default when the loaded runs have more than this many pods in all:
// 48 lanes at the smallest readable lane height (14 px, TimelineLayout::kMinLaneHeight) fill
// a 900 px-high window after its axis and legends; more would need scrolling at once.
inline constexpr int kReplicaRowsAbovePods = 48;
RowMode default_row_mode(int pods);

struct RowPod {
  int lane = 0;        // index into Results::lanes
  double created = 0;  // the pod's creation: on the surge strip until `from`
  double from = 0;     // owns the row's band strip and tracks over [from, to)
  double to = 0;
};

struct ReplicaRow {
  std::vector<RowPod> pods;     // in order of creation
  std::vector<int> used_slots;  // every slot any of its pods used, ascending: one track each
  // The pod whose part of the row holds time t (the main part, else the surge strip if
  // `strip`); nullptr if none.
  const RowPod* owner_at(double t, bool strip = false) const;
};

// REQUIRES: run_end >= every lane's times. Every lane is in exactly one row.
std::vector<ReplicaRow> replica_rows(const std::vector<Lane>& lanes, double run_end);
// One row per lane, in lane order.
std::vector<ReplicaRow> pod_rows(const std::vector<Lane>& lanes, double run_end);

}  // namespace drainsim::viewer
