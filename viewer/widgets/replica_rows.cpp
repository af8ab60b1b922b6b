#include "widgets/replica_rows.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace drainsim::viewer {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// When the pod is out of the way for a replacement: its deletion, or its end if it went
// without one; infinity if neither.
double released(const Lane& l) {
  if (l.deleted) return *l.deleted;
  return l.gone ? *l.gone : kInf;
}

void fill_slots(ReplicaRow& row, const std::vector<Lane>& lanes) {
  for (const RowPod& p : row.pods) {
    for (const Track& t : lanes[p.lane].tracks) row.used_slots.push_back(t.slot);
  }
  std::sort(row.used_slots.begin(), row.used_slots.end());
  row.used_slots.erase(std::unique(row.used_slots.begin(), row.used_slots.end()),
                       row.used_slots.end());
}

}  // namespace

RowMode default_row_mode(int pods) {
  return pods > kReplicaRowsAbovePods ? RowMode::kReplica : RowMode::kPod;
}

const RowPod* ReplicaRow::owner_at(double t, bool strip) const {
  for (const RowPod& p : pods) {
    if (strip ? (p.created <= t && t < p.from) : (p.from <= t && t < p.to)) return &p;
  }
  // The run's last instant belongs to the last owner.
  if (!strip && !pods.empty() && t == pods.back().to) return &pods.back();
  return nullptr;
}

std::vector<ReplicaRow> replica_rows(const std::vector<Lane>& lanes, double run_end) {
  std::vector<int> order(lanes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return lanes[a].created < lanes[b].created; });
  std::vector<ReplicaRow> rows;
  for (int i : order) {
    const Lane& pod = lanes[i];
    int best = -1;
    double best_key = kInf;
    // 1. A row whose last pod was released by the time this one was created.
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      const double rel = released(lanes[rows[r].pods.back().lane]);
      if (rel <= pod.created && rel < best_key) {
        best = r;
        best_key = rel;
      }
    }
    // 2. A row whose older-generation pod is deleted next: this is its surge replacement.
    if (best < 0) {
      for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const Lane& last = lanes[rows[r].pods.back().lane];
        if (last.generation >= pod.generation || !last.deleted) continue;
        if (*last.deleted > pod.created && *last.deleted < best_key) {
          best = r;
          best_key = *last.deleted;
        }
      }
    }
    if (best < 0) {
      best = static_cast<int>(rows.size());
      rows.emplace_back();
    }
    ReplicaRow& row = rows[best];
    double from = pod.created;
    if (!row.pods.empty()) {
      RowPod& prev = row.pods.back();
      const Lane& prev_lane = lanes[prev.lane];
      const double prev_end = prev_lane.gone ? *prev_lane.gone : run_end;
      from = std::clamp(prev_end, pod.created, run_end);
      prev.to = std::max(prev.from, from);
    }
    row.pods.push_back(RowPod{i, pod.created, from, run_end});
  }
  for (ReplicaRow& row : rows) fill_slots(row, lanes);
  return rows;
}

std::vector<ReplicaRow> pod_rows(const std::vector<Lane>& lanes, double run_end) {
  std::vector<ReplicaRow> rows(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    // The whole run: the lane is drawn as it is, nothing clipped, no surge strip.
    rows[i].pods.push_back(RowPod{static_cast<int>(i), lanes[i].created, 0, run_end});
    fill_slots(rows[i], lanes);
  }
  return rows;
}

}  // namespace drainsim::viewer
