// A run's results as the widgets show them: lanes, series and windows (reader_internal.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "base/duration.h"
#include "reader/reader_internal.h"

namespace drainsim::viewer::detail {

namespace {

std::string seconds_text(double s) {
  std::string out = fmt::format("{:.3f}", s);
  return out;
}

double duration_field(const json& obj, const char* key, double fallback) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return fallback;
  const auto d = parse_duration(obj[key].get<std::string>());
  return d ? to_seconds(*d) : fallback;
}

std::optional<double> opt_seconds(const json& obj, const char* key) {
  if (!obj.contains(key) || !obj[key].is_number()) return std::nullopt;
  return obj[key].get<double>();
}

std::string event_label(const json& e) {
  std::string label = e.value("kind", std::string("event"));
  if (e.contains("pod") && e["pod"].is_string()) label += " " + e["pod"].get<std::string>();
  if (e.contains("signal") && e["signal"].is_string())
    label += " " + e["signal"].get<std::string>();
  if (e.contains("node") && e["node"].is_number())
    label += fmt::format(" node {}", e["node"].get<int>());
  if (e.contains("replicas") && e["replicas"].is_number()) {
    label += fmt::format(" to {}", e["replicas"].get<int>());
  }
  return label;
}

}  // namespace

void flatten(const json& v, const std::string& prefix, std::vector<SummaryRow>& out) {
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    const json& x = it.value();
    if (prefix.empty() && it.key() == "audit") continue;
    if (x.is_object()) {
      flatten(x, key, out);
    } else if (x.is_null()) {
      out.push_back({key, "–"});
    } else if (x.is_number_integer() || x.is_number_unsigned()) {
      out.push_back({key, x.dump(), x.get<double>()});
    } else if (x.is_number_float()) {
      const bool seconds = key.find("_s") != std::string::npos;
      const double d = x.get<double>();
      out.push_back({key, seconds ? seconds_text(d) : fmt::format("{:.4g}", d), d});
    } else if (x.is_boolean()) {
      out.push_back({key, x.get<bool>() ? "true" : "false"});
    } else if (x.is_string()) {
      out.push_back({key, x.get<std::string>()});
    }
  }
}

// The lanes, series and windows from the streamed tables.
void build_timeline(Reader& r, const json& doc, Results& run) {
  const json& scenario = doc["scenario"];
  const json& platform = scenario.value("platform", json::object());
  const double grace = run.platform_kind == "docker"
                           ? duration_field(platform, "stop_grace_period", 10)
                           : duration_field(platform, "termination_grace_period", 30);
  const json pre_stop = platform.value("pre_stop", json::object());
  const bool has_prestop =
      run.platform_kind != "docker" && pre_stop.value("kind", std::string("none")) != "none";

  const json& pods = doc["pods"];
  const int npods = static_cast<int>(pods.size());
  run.lanes.resize(npods);
  for (int i = 0; i < npods; ++i) {
    const json& p = pods[i];
    Lane& lane = run.lanes[i];
    lane.pod = i;
    lane.id = p.value("id", fmt::format("pod-{}", i));
    lane.generation = p.value("generation", 0);
    lane.node = p.value("node", 0);
    lane.created = p.value("created_s", 0.0);
    lane.deleted = opt_seconds(p, "deleted_s");
    lane.gone = opt_seconds(p, "gone_s");
    if (lane.deleted) lane.grace_deadline = *lane.deleted + grace;
  }
  auto lane_of = [&](int pod) -> Lane* {
    return pod >= 0 && pod < npods ? &run.lanes[pod] : nullptr;
  };

  // Bands: each state lasts until the pod's next change (or the run's end).
  std::vector<std::optional<std::pair<double, PodState>>> open(npods);
  auto close = [&](int pod, double t) {
    if (!open[pod]) return;
    if (t > open[pod]->first)
      run.lanes[pod].bands.push_back({open[pod]->first, t, open[pod]->second});
  };
  for (const PodStateRow& s : r.pod_states) {
    if (!lane_of(s.pod)) continue;
    close(s.pod, s.t);
    open[s.pod] = std::make_pair(s.t, s.state);
  }
  for (int p = 0; p < npods; ++p) close(p, std::max(run.ended_at, open[p] ? open[p]->first : 0.0));

  for (SignalRow& s : r.signals) {
    if (Lane* lane = lane_of(s.pod)) {
      lane->markers.push_back({s.t, s.kind, s.delivered, std::move(s.source)});
    }
  }
  if (has_prestop) {
    for (Lane& lane : run.lanes) {
      if (!lane.deleted) continue;
      double end = lane.gone.value_or(run.ended_at);
      for (const Marker& m : lane.markers) {
        if (m.t >= *lane.deleted && (m.kind == MarkerKind::kTerm || m.kind == MarkerKind::kKill)) {
          end = m.t;
          break;
        }
      }
      lane.prestop = Span{*lane.deleted, end};
    }
  }

  // Attempts onto per-slot tracks, by start.
  run.attempts = std::move(r.attempts);
  std::vector<std::map<int, Track>> tracks(npods);
  for (std::size_t i = 0; i < run.attempts.size(); ++i) {
    const Attempt& a = run.attempts[i];
    if (a.pod < 0 || a.pod >= npods) continue;
    Track& t = tracks[a.pod][a.slot];
    t.slot = a.slot;
    t.attempts.push_back(static_cast<std::uint32_t>(i));
  }
  for (int p = 0; p < npods; ++p) {
    for (auto& [slot, t] : tracks[p]) {
      std::stable_sort(t.attempts.begin(), t.attempts.end(), [&](std::uint32_t x, std::uint32_t y) {
        return run.attempts[x].start < run.attempts[y].start;
      });
      t.max_end.resize(t.attempts.size());
      t.start.resize(t.attempts.size());
      t.end.resize(t.attempts.size());
      t.outcome.resize(t.attempts.size());
      double m = -1;
      for (std::size_t k = 0; k < t.attempts.size(); ++k) {
        const Attempt& a = run.attempts[t.attempts[k]];
        m = std::max(m, a.end);
        t.max_end[k] = m;
        t.start[k] = a.start;
        t.end[k] = a.end;
        t.outcome[k] = a.outcome;
        if (a.outcome != Outcome::kCompleted) run.lanes[p].notable.push_back(t.attempts[k]);
      }
      run.lanes[p].tracks.push_back(std::move(t));
    }
    std::sort(run.lanes[p].notable.begin(), run.lanes[p].notable.end(),
              [&](std::uint32_t x, std::uint32_t y) {
                return run.attempts[x].start < run.attempts[y].start;
              });
  }

  // Series.
  Series& se = run.series;
  se.queued = std::move(r.queued);
  se.scheduled = std::move(r.scheduled);
  se.in_flight = std::move(r.in_flight);
  {
    std::vector<PodState> state(npods, PodState::kGone);
    std::vector<bool> known(npods, false);
    int ready = 0;
    for (std::size_t i = 0; i < r.pod_states.size(); ++i) {
      const PodStateRow& s = r.pod_states[i];
      if (!lane_of(s.pod)) continue;
      if (known[s.pod] && state[s.pod] == PodState::kReady) --ready;
      state[s.pod] = s.state;
      known[s.pod] = true;
      if (s.state == PodState::kReady) ++ready;
      const bool last_at_t = i + 1 == r.pod_states.size() || r.pod_states[i + 1].t != s.t;
      if (!last_at_t) continue;
      const double cap = static_cast<double>(ready) * run.concurrency;
      if (!se.capacity.values.empty() && se.capacity.values.back() == cap) continue;
      se.capacity.t.push_back(s.t);
      se.capacity.values.push_back(cap);
    }
  }
  se.bin_s = run.ended_at > 20000 ? std::ceil(run.ended_at / 20000) : 1;
  se.completions_per_s.assign(static_cast<std::size_t>(std::floor(run.ended_at / se.bin_s)) + 1, 0);
  for (const Attempt& a : run.attempts) {
    if (a.outcome != Outcome::kCompleted && a.outcome != Outcome::kDuplicate) continue;
    const auto bin = static_cast<std::size_t>(std::max(0.0, std::floor(a.end / se.bin_s)));
    if (bin < se.completions_per_s.size()) se.completions_per_s[bin] += 1 / se.bin_s;
  }

  // Windows: from each scripted event until the fleet is settled again.
  std::vector<double> settled_at;  // instants after which every pod is ready or gone
  {
    std::vector<PodState> state(npods, PodState::kGone);
    int unsettled = 0;
    for (std::size_t i = 0; i < r.pod_states.size(); ++i) {
      const PodStateRow& s = r.pod_states[i];
      if (!lane_of(s.pod)) continue;
      auto busy = [](PodState x) { return x != PodState::kReady && x != PodState::kGone; };
      unsettled += (busy(s.state) ? 1 : 0) - (busy(state[s.pod]) ? 1 : 0);
      state[s.pod] = s.state;
      const bool last_at_t = i + 1 == r.pod_states.size() || r.pod_states[i + 1].t != s.t;
      if (last_at_t && unsettled == 0) settled_at.push_back(s.t);
    }
  }
  if (scenario.contains("events") && scenario["events"].is_array()) {
    for (const json& e : scenario["events"]) {
      if (!e.is_object() || !e.contains("at") || !e["at"].is_string()) continue;
      const auto at = parse_duration(e["at"].get<std::string>());
      if (!at) continue;
      Window w;
      w.start = to_seconds(*at);
      if (w.start > run.ended_at) continue;
      w.deploy = e.value("kind", std::string()) == "rolling_restart";
      w.label = event_label(e);
      // The first settled instant strictly after the event (the event's own changes are
      // recorded at its time).
      const auto it = std::upper_bound(settled_at.begin(), settled_at.end(), w.start);
      w.end = it == settled_at.end() ? run.ended_at : *it;
      run.windows.push_back(std::move(w));
    }
    std::stable_sort(run.windows.begin(), run.windows.end(),
                     [](const Window& a, const Window& b) { return a.start < b.start; });
  }
}

}  // namespace drainsim::viewer::detail
