#include "io/timeline_spill.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/timeline_schema.h"
#include "io/json_seconds.h"

namespace drainsim {

namespace {

namespace ts = timeline_schema;

// The most a fixed row (no free text) takes: 8 cells of at most 24 bytes, commas, quotes.
constexpr std::size_t kMaxRow = 256;

template <typename Int>
char* put_int(char* p, Int v) {
  return std::to_chars(p, p + 24, v).ptr;
}

// A name from a names() table (letters and underscores): nothing to escape.
char* put_name(char* p, std::string_view name) {
  *p++ = '"';
  std::memcpy(p, name.data(), name.size());
  p += name.size();
  *p++ = '"';
  return p;
}

char* put_bool(char* p, bool v) {
  const std::string_view text = v ? "true" : "false";
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

char* put(char* p, char c) {
  *p++ = c;
  return p;
}

template <std::size_t N>
std::string columns_text(const std::array<std::string_view, N>& names) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string_view n : names) out.push_back(n);
  return out.dump();
}

}  // namespace

TimelineSpill::TimelineSpill(std::size_t buffer)
    : tables_{Rows(buffer), Rows(buffer), Rows(buffer), Rows(buffer),
              Rows(buffer), Rows(buffer), Rows(buffer)} {}

char* TimelineSpill::begin_row(Table t, std::size_t n) {
  Rows& rows = tables_[t];
  char* p = rows.file.reserve(n + 1);
  if (rows.count++ > 0) *p++ = ',';
  return p;
}

void TimelineSpill::add(const AttemptRecord& a) {
  char* p = begin_row(kAttempts, kMaxRow);
  p = put(p, '[');
  p = put(put_int(p, a.job), ',');
  p = put(put_int(p, a.attempt), ',');
  p = put(put_int(p, a.pod), ',');
  p = put(put_int(p, a.worker), ',');
  p = put(put_int(p, a.slot), ',');
  p = put(write_json_seconds(p, a.start), ',');
  p = put(write_json_seconds(p, a.end), ',');
  p = put(put_name(p, outcome_name(a)), ']');
  tables_[kAttempts].file.commit(p);
}

void TimelineSpill::add(const PodStateRecord& r) {
  char* p = begin_row(kPodStates, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.pod), ',');
  p = put(put_name(p, to_string(r.state)), ']');
  tables_[kPodStates].file.commit(p);
}

void TimelineSpill::add(const SignalRecord& r) {
  char* p = begin_row(kSignals, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.pod), ',');
  p = put(put_name(p, to_string(r.signal)), ',');
  p = put(put_bool(p, r.delivered), ',');
  SpillFile& file = tables_[kSignals].file;
  file.commit(p);
  file.append(nlohmann::json(r.source).dump());  // free text: escaped as nlohmann does
  file.append("]");
}

void TimelineSpill::add(const RemainingRecord& r) {
  char* p = begin_row(kRemaining, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.pod), ',');
  p = put(put_int(p, r.worker), ',');
  p = put(put_int(p, r.remaining), ']');
  tables_[kRemaining].file.commit(p);
}

void TimelineSpill::add(const SeriesPoint& r) {
  char* p = begin_row(kSeries, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.queued), ',');
  p = put(put_int(p, r.scheduled), ',');
  p = put(put_int(p, r.in_flight), ']');
  tables_[kSeries].file.commit(p);
}

void TimelineSpill::add(const HeartbeatRecord& r) {
  char* p = begin_row(kHeartbeats, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.pod), ',');
  p = put(put_int(p, r.worker), ',');
  p = put(put_name(p, to_string(r.state)), ']');
  tables_[kHeartbeats].file.commit(p);
}

void TimelineSpill::add(const ReportRecord& r) {
  char* p = begin_row(kReports, kMaxRow);
  p = put(p, '[');
  p = put(write_json_seconds(p, r.at), ',');
  p = put(put_int(p, r.pod), ',');
  p = put(put_int(p, r.worker), ',');
  p = put(put_int(p, r.job), ',');
  p = put(put_int(p, r.attempt), ',');
  p = put(put_name(p, to_string(r.kind)), ',');
  p = put(put_name(p, error_name(r)), ',');
  p = put(put_bool(p, r.accepted), ']');
  tables_[kReports].file.commit(p);
}

void TimelineSpill::write(const TextSink& out) const {
  write(out, [this](Table t, const TextSink& o) { tables_[t].file.read(o); });
}

void TimelineSpill::write_and_release(const TextSink& out) {
  write(out, [this](Table t, const TextSink& o) { tables_[t].file.read_and_release(o); });
}

void TimelineSpill::write(const TextSink& out,
                          const std::function<void(Table, const TextSink&)>& read) {
  struct Entry {
    std::string_view name;
    std::string columns;
    Table table;
  };
  std::vector<Entry> entries = {
      {ts::attempts::kName, columns_text(ts::attempts::kColumns), kAttempts},
      {ts::drain_remaining::kName, columns_text(ts::drain_remaining::kColumns), kRemaining},
      {ts::heartbeats::kName, columns_text(ts::heartbeats::kColumns), kHeartbeats},
      {ts::pod_states::kName, columns_text(ts::pod_states::kColumns), kPodStates},
      {ts::reports::kName, columns_text(ts::reports::kColumns), kReports},
      {ts::series::kName, columns_text(ts::series::kColumns), kSeries},
      {ts::signals::kName, columns_text(ts::signals::kColumns), kSignals},
  };
  // The document's key order: nlohmann's objects sort their keys.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  bool first = true;
  for (const Entry& e : entries) {
    out(first ? "{\"" : ",\"");
    first = false;
    out(e.name);
    out("\":{\"columns\":");
    out(e.columns);
    out(",\"rows\":[");
    read(e.table, out);
    out("]}");
  }
  out("}");
}

nlohmann::json TimelineSpill::json() const {
  std::string text;
  write([&](std::string_view piece) { text += piece; });
  return nlohmann::json::parse(text);
}

std::uint64_t TimelineSpill::rows() const {
  std::uint64_t n = 0;
  for (const Rows& t : tables_) n += t.count;
  return n;
}

std::uint64_t TimelineSpill::bytes() const {
  std::uint64_t n = 0;
  for (const Rows& t : tables_) n += t.file.size();
  return n;
}

}  // namespace drainsim
