#include "io/trace_export.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "base/timeline_schema.h"
#include "io/json_reader.h"

namespace drainsim {

namespace {

using nlohmann::json;

std::int64_t micros(const json& seconds) { return std::llround(seconds.get<double>() * 1e6); }

// The timeline table `name` has the schema's columns, in order.
template <std::size_t N>
bool has_columns(const json& table, const std::array<std::string_view, N>& names) {
  const json& cols = table["columns"];
  if (!cols.is_array() || cols.size() != N) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (cols[i] != names[i]) return false;
  }
  return true;
}

// What is wrong with the rows of timeline.NAME, or "": each row must be an array of one
// value per column, of the kind `kinds` gives column by column: t a time in seconds (a
// number of magnitude at most 1e12, so that its microseconds fit), i a count or index (a
// whole number from 0 to 2^31 - 2), j a job id (a whole number >= 0), s a string, a
// anything.
std::string row_problem(const json& table, std::string_view name, std::string_view kinds) {
  const json& rows = table["rows"];
  if (!rows.is_array())
    return fmt::format("timeline.{}.rows: expected an array, got {}", name, show(rows));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const json& row = rows[r];
    if (!row.is_array() || row.size() != kinds.size()) {
      return fmt::format("timeline.{}.rows[{}]: expected {} values, got {}", name, r, kinds.size(),
                         show(row));
    }
    for (std::size_t c = 0; c < kinds.size(); ++c) {
      const json& v = row[c];
      const std::optional<std::int64_t> whole = as_whole(v);
      const char* what = nullptr;
      switch (kinds[c]) {
        case 't':
          if (!v.is_number() || std::fabs(v.get<double>()) > 1e12) what = "a time in seconds";
          break;
        case 'i':
          if (!whole || *whole < 0 || *whole > 0x7ffffffe)
            what = "a whole number from 0 to 2147483646";
          break;
        case 'j':
          if (!whole || *whole < 0) what = "a whole number >= 0";
          break;
        case 's':
          if (!v.is_string()) what = "a string";
          break;
        default:
          break;
      }
      if (what != nullptr) {
        return fmt::format("timeline.{}.rows[{}][{}] ({}): expected {}, got {}", name, r, c,
                           table["columns"][c].get<std::string>(), what, show(v));
      }
    }
  }
  return "";
}

struct Slice {
  std::int64_t ts, dur;
  std::size_t row;
};

}  // namespace

TraceExport chrome_trace(const json& results) {
  TraceExport out;
  if (!results.is_object() || !results.contains("pods") || !results["pods"].is_array()) {
    out.error = "not a drainsim results file (no \"pods\")";
    return out;
  }
  if (!results.contains("timeline") || !results["timeline"].is_object()) {
    out.error = "the results have no timeline: run drainsim with --timeline";
    return out;
  }
  const json& tl = results["timeline"];
  namespace ts = timeline_schema;
  for (const std::string_view t :
       {ts::pod_states::kName, ts::signals::kName, ts::attempts::kName, ts::series::kName}) {
    const std::string key(t);
    if (!tl.contains(key) || !tl[key].contains("columns") || !tl[key].contains("rows")) {
      out.error = fmt::format("timeline.{} is missing or has no columns and rows", t);
      return out;
    }
  }
  const json& attempts = tl[std::string(ts::attempts::kName)];
  const json& states = tl[std::string(ts::pod_states::kName)];
  const json& signals = tl[std::string(ts::signals::kName)];
  const json& series = tl[std::string(ts::series::kName)];
  if (!has_columns(attempts, ts::attempts::kColumns) ||
      !has_columns(states, ts::pod_states::kColumns) ||
      !has_columns(signals, ts::signals::kColumns) || !has_columns(series, ts::series::kColumns)) {
    out.error = "a timeline table has other columns than this export reads (results/README.md)";
    return out;
  }
  for (const auto& [table, name, kinds] : {std::tuple{&attempts, ts::attempts::kName, "jiiiitts"},
                                           std::tuple{&states, ts::pod_states::kName, "tis"},
                                           std::tuple{&signals, ts::signals::kName, "tisas"},
                                           std::tuple{&series, ts::series::kName, "taaa"}}) {
    if (std::string problem = row_problem(*table, name, kinds); !problem.empty()) {
      out.error = std::move(problem);
      return out;
    }
  }
  namespace ta = ts::attempts;
  const int a_job = ta::kJob, a_attempt = ta::kAttempt, a_pod = ta::kPod, a_worker = ta::kWorker,
            a_slot = ta::kSlot, a_start = ta::kStart, a_end = ta::kEnd, a_outcome = ta::kOutcome;
  const int s_t = ts::pod_states::kTime, s_pod = ts::pod_states::kPod,
            s_state = ts::pod_states::kState;
  const int g_t = ts::signals::kTime, g_pod = ts::signals::kPod, g_signal = ts::signals::kSignal,
            g_delivered = ts::signals::kDelivered, g_source = ts::signals::kSource;
  const int c_t = ts::series::kTime;

  const int npods = static_cast<int>(results["pods"].size());
  const double ended = results.contains("run") ? results["run"].value("ended_at_s", 0.0) : 0.0;

  // Attempts per (pod, slot), by start; an overlapping one moves to an overlap lane.
  std::map<std::pair<int, int>, std::vector<std::vector<Slice>>> lanes;
  int max_slot = 0;
  {
    std::map<std::pair<int, int>, std::vector<Slice>> by_slot;
    const json& rows = attempts["rows"];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json& r = rows[i];
      const int slot = r[a_slot].get<int>();
      max_slot = std::max(max_slot, slot);
      const std::int64_t ts = micros(r[a_start]);
      by_slot[{r[a_pod].get<int>(), slot}].push_back({ts, micros(r[a_end]) - ts, i});
    }
    for (auto& [key, slices] : by_slot) {
      std::stable_sort(slices.begin(), slices.end(),
                       [](const Slice& a, const Slice& b) { return a.ts < b.ts; });
      std::vector<std::vector<Slice>>& tracks = lanes[key];
      for (const Slice& s : slices) {
        auto fits = [&](const std::vector<Slice>& t) {
          return t.empty() || t.back().ts + t.back().dur <= s.ts;
        };
        auto it = std::find_if(tracks.begin(), tracks.end(), fits);
        if (it == tracks.end()) {
          tracks.emplace_back();
          it = std::prev(tracks.end());
        }
        it->push_back(s);
      }
    }
  }
  std::size_t overlap_lanes = 0;
  for (const auto& [key, tracks] : lanes)
    overlap_lanes = std::max(overlap_lanes, tracks.size() - 1);
  // Lane k of slot s is tid offset 1 + s + k * (max_slot + 1); M keeps pods apart.
  const std::int64_t per_pod =
      1 + static_cast<std::int64_t>(max_slot + 1) * static_cast<std::int64_t>(overlap_lanes + 1);
  std::int64_t m = 1000;
  while (m <= per_pod) m *= 10;
  auto pid_of = [](int pod) { return static_cast<std::int64_t>(pod) + 1; };
  auto tid_of = [&](int pod, int slot, std::size_t lane) {
    return pid_of(pod) * m + 1 + slot + static_cast<std::int64_t>(lane) * (max_slot + 1);
  };

  std::string text = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const json& e) {
    if (!first) text += ",\n";
    first = false;
    text += e.dump();
  };

  // Names.
  for (int p = 0; p < npods; ++p) {
    const json& pod = results["pods"][p];
    const std::string id = pod.value("id", fmt::format("pod-{}", p));
    emit({{"name", "process_name"},
          {"ph", "M"},
          {"pid", pid_of(p)},
          {"tid", pid_of(p) * m},
          {"args", {{"name", fmt::format("{} (generation {})", id, pod.value("generation", 0))}}}});
    emit({{"name", "process_sort_index"},
          {"ph", "M"},
          {"pid", pid_of(p)},
          {"tid", pid_of(p) * m},
          {"args", {{"sort_index", p}}}});
    emit({{"name", "thread_name"},
          {"ph", "M"},
          {"pid", pid_of(p)},
          {"tid", pid_of(p) * m},
          {"args", {{"name", "lifecycle"}}}});
    emit({{"name", "thread_sort_index"},
          {"ph", "M"},
          {"pid", pid_of(p)},
          {"tid", pid_of(p) * m},
          {"args", {{"sort_index", -1}}}});
  }
  for (const auto& [key, tracks] : lanes) {
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      const std::string name = k == 0 ? fmt::format("slot {}", key.second)
                                      : fmt::format("slot {} (overlap {})", key.second, k);
      const std::int64_t tid = tid_of(key.first, key.second, k);
      emit({{"name", "thread_name"},
            {"ph", "M"},
            {"pid", pid_of(key.first)},
            {"tid", tid},
            {"args", {{"name", name}}}});
      emit({{"name", "thread_sort_index"},
            {"ph", "M"},
            {"pid", pid_of(key.first)},
            {"tid", tid},
            {"args", {{"sort_index", tid - pid_of(key.first) * m}}}});
    }
  }
  const std::int64_t backend = pid_of(npods);
  emit({{"name", "process_name"},
        {"ph", "M"},
        {"pid", backend},
        {"tid", backend * m},
        {"args", {{"name", "backend"}}}});
  emit({{"name", "process_sort_index"},
        {"ph", "M"},
        {"pid", backend},
        {"tid", backend * m},
        {"args", {{"sort_index", npods}}}});

  // Pod states: a slice from each change to the pod's next one (gone is not drawn).
  {
    const json& rows = states["rows"];
    std::vector<std::optional<std::pair<std::int64_t, std::string>>> open(npods);
    auto close = [&](int pod, std::int64_t until) {
      if (!open[pod] || open[pod]->second == "gone" || until <= open[pod]->first) return;
      emit({{"name", open[pod]->second},
            {"cat", "pod_state"},
            {"ph", "X"},
            {"pid", pid_of(pod)},
            {"tid", pid_of(pod) * m},
            {"ts", open[pod]->first},
            {"dur", until - open[pod]->first}});
    };
    for (const json& r : rows) {
      const int pod = r[s_pod].get<int>();
      if (pod < 0 || pod >= npods) continue;
      const std::int64_t t = micros(r[s_t]);
      close(pod, t);
      open[pod] = std::make_pair(t, r[s_state].get<std::string>());
    }
    const std::int64_t end = std::llround(ended * 1e6);
    for (int p = 0; p < npods; ++p) close(p, end);
  }

  // Signals.
  for (const json& r : signals["rows"]) {
    const int pod = r[g_pod].get<int>();
    const std::string source = r[g_source].get<std::string>();
    std::string name = r[g_signal].get<std::string>();
    if (source == "oom") name += " (OOM)";
    emit({{"name", name},
          {"cat", "signal"},
          {"ph", "i"},
          {"s", "t"},
          {"pid", pid_of(pod)},
          {"tid", pid_of(pod) * m},
          {"ts", micros(r[g_t])},
          {"args", {{"delivered", r[g_delivered]}, {"source", source}}}});
  }

  // Attempts.
  const json& rows = attempts["rows"];
  for (const auto& [key, tracks] : lanes) {
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      for (const Slice& s : tracks[k]) {
        const json& r = rows[s.row];
        emit({{"name",
               fmt::format("job {} #{}", r[a_job].get<std::int64_t>(), r[a_attempt].get<int>())},
              {"cat", r[a_outcome]},
              {"ph", "X"},
              {"pid", pid_of(key.first)},
              {"tid", tid_of(key.first, key.second, k)},
              {"ts", s.ts},
              {"dur", s.dur},
              {"args",
               {{"job", r[a_job]},
                {"attempt", r[a_attempt]},
                {"worker", r[a_worker]},
                {"slot", key.second},
                {"outcome", r[a_outcome]}}}});
      }
    }
  }

  // Job counts.
  const json& cols = series["columns"];
  for (const json& r : series["rows"]) {
    json args = json::object();
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (static_cast<int>(i) != c_t) args[cols[i].get<std::string>()] = r[i];
    }
    emit({{"name", "jobs"},
          {"ph", "C"},
          {"pid", backend},
          {"tid", backend * m},
          {"ts", micros(r[c_t])},
          {"args", args}});
  }

  text += "\n],\"otherData\":";
  text += json{{"scenario", results.contains("scenario") && results["scenario"].is_object()
                                ? results["scenario"].value("name", std::string())
                                : std::string()},
               {"seed", results.value("seed", json(nullptr))},
               {"result_hash", results.value("result_hash", std::string())},
               {"time", "simulated"}}
              .dump();
  text += "}\n";
  out.trace = std::move(text);
  return out;
}

}  // namespace drainsim
