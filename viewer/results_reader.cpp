#include "results_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/duration.h"

namespace drainsim::viewer {

namespace {

using nlohmann::json;

constexpr std::array<const char*, kPodStateCount> kStateNames = {
    "starting", "ready", "quiet", "draining", "terminating", "crashed", "gone"};
constexpr std::array<const char*, 7> kMarkerNames = {"TERM", "INT",  "TSTP", "CONT",
                                                     "KILL", "QUIT", "OOM"};
constexpr std::array<const char*, kOutcomeCount> kOutcomeNames = {
    "completed", "failed", "interrupted", "killed", "abandoned", "cancelled", "duplicate"};

template <std::size_t N>
int index_of(const std::array<const char*, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<int>(i);
  }
  return -1;
}

// One cell of a timeline row.
struct Cell {
  enum Kind : std::uint8_t { kNull, kBool, kInt, kDouble, kString } kind = kNull;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  bool number() const { return kind == kInt || kind == kDouble; }
  double num() const { return kind == kInt ? static_cast<double>(i) : d; }
};

struct PodStateRow {
  double t;
  int pod;
  PodState state;
};
struct SignalRow {
  double t;
  int pod;
  MarkerKind kind;
  bool delivered;
  std::string source;
};
struct SeriesRow {
  double t, queued, scheduled, in_flight;
};

// The timeline tables this reader uses, with the columns it expects.
enum Table : int { kPodStates, kSignals, kAttempts, kSeries, kTableCount, kIgnored = -1 };
const std::array<std::vector<std::string>, kTableCount> kColumns = {{
    {"t_s", "pod", "state"},
    {"t_s", "pod", "signal", "delivered", "source"},
    {"job", "attempt", "pod", "worker", "slot", "start_s", "end_s", "outcome"},
    {"t_s", "queued", "scheduled", "in_flight"},
}};
Table table_of(std::string_view name) {
  if (name == "pod_states") return kPodStates;
  if (name == "signals") return kSignals;
  if (name == "attempts") return kAttempts;
  if (name == "series") return kSeries;
  return kIgnored;
}

// SAX handler: builds a DOM of everything but the rows of the timeline tables, which it
// streams into typed vectors. Knows where it is by a stack of frames.
class Reader {
 public:
  json root;
  std::vector<PodStateRow> pod_states;
  std::vector<SignalRow> signals;
  std::vector<Attempt> attempts;
  std::vector<SeriesRow> series;
  std::string schema_version;
  std::string error;  // a problem in the timeline rows (parsing stops)
  std::size_t rows_seen[kTableCount] = {};

  bool null() { return scalar(Cell{}, json(nullptr)); }
  bool boolean(bool v) {
    Cell c;
    c.kind = Cell::kBool;
    c.b = v;
    return scalar(c, json(v));
  }
  bool number_integer(json::number_integer_t v) {
    Cell c;
    c.kind = Cell::kInt;
    c.i = v;
    return scalar(c, json(v));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    Cell c;
    c.kind = Cell::kInt;
    c.i = static_cast<std::int64_t>(v);
    return scalar(c, json(v));
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    Cell c;
    c.kind = Cell::kDouble;
    c.d = v;
    return scalar(c, json(v));
  }
  bool string(json::string_t& v) {
    if (in_row_) {
      if (ncells_ >= cells_.size()) return too_many_cells();
      Cell& c = cells_[ncells_++];
      c.kind = Cell::kString;
      c.s.assign(v);
      return true;
    }
    if (frames_.size() == 1 && key_ == "schema_version") schema_version = v;
    return add(json(std::move(v)));
  }
  bool binary(json::binary_t&) { return add(json(nullptr)); }

  bool start_object(std::size_t) {
    if (in_row_ || skipping_rows_) return nested();
    frames_.push_back({false, key_});
    return open(json::object());
  }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() {
    frames_.pop_back();
    dom_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    if (in_row_) return nested();
    if (skipping_rows_) {  // a row
      in_row_ = true;
      ncells_ = 0;
      return true;
    }
    // timeline.<table>.rows: streamed, not kept in the DOM.
    if (frames_.size() == 3 && key_ == "rows" && frames_[1].key == "timeline") {
      table_ = table_of(frames_[2].key);
      if (table_ != kIgnored && !columns_ok()) return false;
      skipping_rows_ = true;
      return true;
    }
    frames_.push_back({true, key_});
    return open(json::array());
  }
  bool end_array() {
    if (in_row_) {
      in_row_ = false;
      return table_ == kIgnored || row();
    }
    if (skipping_rows_) {
      skipping_rows_ = false;
      return true;
    }
    frames_.pop_back();
    dom_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    parse_error_position = position;
    parse_error_message = e.what();
    return false;
  }

  std::size_t parse_error_position = 0;
  std::string parse_error_message;

  // The fast reader's way in: it fills row_cells() and commits the row to table t.
  static constexpr std::size_t kMaxCells = 8;
  Cell* row_cells() { return cells_.data(); }
  bool commit_row(Table t, std::size_t n) {
    table_ = t;
    ncells_ = n;
    return row();
  }

 private:
  struct Frame {
    bool array;
    std::string key;
  };

  bool scalar(const Cell& c, json v) {
    if (in_row_) {
      if (ncells_ >= cells_.size()) return too_many_cells();
      cells_[ncells_++] = c;
      return true;
    }
    if (skipping_rows_) return fail("timeline rows must be arrays");
    return add(std::move(v));
  }
  bool add(json v) {
    if (dom_.empty()) {
      root = std::move(v);
      return true;
    }
    json& parent = *dom_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
    } else {
      parent[key_] = std::move(v);
    }
    return true;
  }
  bool open(json v) {
    if (dom_.empty()) {
      root = std::move(v);
      dom_.push_back(&root);
      return true;
    }
    json& parent = *dom_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      dom_.push_back(&parent.back());
    } else {
      json& slot = parent[key_];
      slot = std::move(v);
      dom_.push_back(&slot);
    }
    return true;
  }
  bool nested() { return fail("a timeline cell holds an object or array"); }
  bool too_many_cells() { return fail("a timeline row has more cells than columns"); }
  bool fail(std::string what) {
    if (error.empty()) {
      error = fmt::format("timeline.{}: {}", frames_.size() > 2 ? frames_[2].key : "?", what);
    }
    return false;
  }

  bool columns_ok() {
    const json* t = dom_.size() >= 3 ? dom_[2] : nullptr;
    if (t == nullptr || !t->contains("columns")) {
      return fail("no columns before the rows");
    }
    const json& cols = (*t)["columns"];
    if (cols != json(kColumns[table_])) {
      return fail(fmt::format("columns {} are not the {} this viewer reads", cols.dump(),
                              json(kColumns[table_]).dump()));
    }
    return true;
  }

  // Checks the cell kinds of the current row against `spec`: n number, i integer, s string,
  // b bool.
  bool shape(const char* spec) {
    const std::size_t n = std::char_traits<char>::length(spec);
    if (ncells_ != n) {
      return fail(fmt::format("row {} has {} cells, expected {}", rows_seen[table_], ncells_, n));
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Cell& c = cells_[i];
      const bool ok = spec[i] == 'n'   ? c.number()
                      : spec[i] == 'i' ? c.kind == Cell::kInt
                      : spec[i] == 's' ? c.kind == Cell::kString
                                       : c.kind == Cell::kBool;
      if (!ok) {
        return fail(fmt::format("row {}, column {}: expected {}", rows_seen[table_],
                                kColumns[table_][i],
                                spec[i] == 's'   ? "a string"
                                : spec[i] == 'b' ? "true or false"
                                                 : "a number"));
      }
    }
    return true;
  }

  bool row() {
    bool ok = true;
    switch (table_) {
      case kPodStates: {
        if (!(ok = shape("nis"))) break;
        const int st = index_of(kStateNames, cells_[2].s);
        if (st < 0) {
          ok =
              fail(fmt::format("row {}: unknown pod state \"{}\"", rows_seen[table_], cells_[2].s));
          break;
        }
        pod_states.push_back(
            {cells_[0].num(), static_cast<int>(cells_[1].i), static_cast<PodState>(st)});
        break;
      }
      case kSignals: {
        if (!(ok = shape("nisbs"))) break;
        std::string_view sig = cells_[2].s;
        if (sig.starts_with("SIG")) sig.remove_prefix(3);
        int k = index_of(kMarkerNames, sig);
        if (k < 0 || k == static_cast<int>(MarkerKind::kOom)) {
          ok = fail(fmt::format("row {}: unknown signal \"{}\"", rows_seen[table_], cells_[2].s));
          break;
        }
        if (k == static_cast<int>(MarkerKind::kKill) && cells_[4].s == "oom") {
          k = static_cast<int>(MarkerKind::kOom);
        }
        signals.push_back({cells_[0].num(), static_cast<int>(cells_[1].i),
                           static_cast<MarkerKind>(k), cells_[3].b, cells_[4].s});
        break;
      }
      case kAttempts: {
        if (!(ok = shape("iiiiinns"))) break;
        const int o = index_of(kOutcomeNames, cells_[7].s);
        if (o < 0) {
          ok = fail(fmt::format("row {}: unknown outcome \"{}\"", rows_seen[table_], cells_[7].s));
          break;
        }
        Attempt a;
        a.job = cells_[0].i;
        a.attempt = static_cast<std::int32_t>(cells_[1].i);
        a.pod = static_cast<std::int32_t>(cells_[2].i);
        a.worker = static_cast<std::int32_t>(cells_[3].i);
        a.slot = static_cast<std::int32_t>(cells_[4].i);
        a.start = cells_[5].num();
        a.end = cells_[6].num();
        a.outcome = static_cast<Outcome>(o);
        attempts.push_back(a);
        break;
      }
      case kSeries:
        if (!(ok = shape("nnnn"))) break;
        series.push_back({cells_[0].num(), cells_[1].num(), cells_[2].num(), cells_[3].num()});
        break;
      default:
        break;
    }
    ++rows_seen[table_];
    return ok;
  }

  std::vector<Frame> frames_;
  std::vector<json*> dom_;
  std::string key_;
  bool skipping_rows_ = false, in_row_ = false;
  Table table_ = kIgnored;
  std::array<Cell, kMaxCells> cells_;
  std::size_t ncells_ = 0;
};

// The fast path for big files: a hand-written scanner finds the top-level "timeline"
// value and reads the rows of its tables straight into the Reader (std::from_chars for
// numbers), skipping the tables it does not use; nlohmann parses the rest of the document
// (small) into a DOM. It accepts any whitespace and key order but gives up (returns false)
// on anything unusual (escapes in a timeline string, a table's rows before its columns,
// columns it does not know, malformed or truncated input, a bad row): the SAX reader then
// reads the whole file and gives the precise message.
class FastReader {
 public:
  FastReader(std::string_view text, Reader& r) : s_(text), r_(r) {}

  // On success, r_.root is the document (without rows) and `has_timeline` says whether it
  // had one.
  bool read() {
    ws();
    if (!eat('{')) return false;
    std::string rest;
    rest.reserve(1 << 16);
    rest += '{';
    bool first = true;
    ws();
    if (peek() == '}') return false;  // an empty object: let the slow path say what is wrong
    while (true) {
      ws();
      const std::size_t key_start = i_;
      std::string_view key;
      if (!string(key)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      const std::size_t value_start = i_;
      if (key == "timeline") {
        if (!timeline()) return false;
        if (!first) rest += ',';
        rest += "\"timeline\":{}";
        has_timeline = true;
      } else {
        if (!skip_value()) return false;
        if (!first) rest += ',';
        rest.append(s_.substr(key_start, value_start - key_start));
        rest.append(s_.substr(value_start, i_ - value_start));
      }
      first = false;
      ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      return false;
    }
    ws();
    if (i_ != s_.size()) return false;
    rest += '}';
    r_.root = json::parse(rest, nullptr, false);
    if (r_.root.is_discarded() || !r_.root.is_object()) return false;
    if (r_.root.contains("schema_version") && r_.root["schema_version"].is_string()) {
      r_.schema_version = r_.root["schema_version"].get<std::string>();
    }
    return true;
  }

  bool has_timeline = false;

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void ws() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }
  // A string without escapes (those go to the slow path).
  bool string(std::string_view& out) {
    if (!eat('"')) return false;
    const std::size_t start = i_;
    const std::size_t end = s_.find_first_of("\"\\", start);
    if (end == std::string_view::npos || s_[end] != '"') return false;
    out = s_.substr(start, end - start);
    i_ = end + 1;
    return true;
  }
  // Skips any JSON value (checking only that brackets balance outside strings).
  bool skip_value() {
    const char c = peek();
    if (c == '"') {
      ++i_;
      while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
      return eat('"');
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      while (i_ < s_.size()) {
        const char d = s_[i_];
        if (d == '"') {
          if (!skip_value()) return false;
          continue;
        }
        ++i_;
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') {
          if (--depth == 0) return true;
        }
      }
      return false;
    }
    const std::size_t start = i_;
    while (i_ < s_.size() && !std::strchr(",}] \n\r\t", s_[i_])) ++i_;
    return i_ > start;
  }

  bool timeline() {
    if (!eat('{')) return false;
    ws();
    if (eat('}')) return true;
    while (true) {
      ws();
      std::string_view key;
      if (!string(key)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      const Table t = table_of(key);
      if (t == kIgnored) {
        if (!skip_value()) return false;
      } else if (!table(t)) {
        return false;
      }
      ws();
      if (eat(',')) continue;
      return eat('}');
    }
  }

  bool table(Table t) {
    if (!eat('{')) return false;
    bool columns = false;
    while (true) {
      ws();
      std::string_view key;
      if (!string(key)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      const std::size_t start = i_;
      if (key == "columns") {
        if (!skip_value()) return false;
        const json cols = json::parse(s_.substr(start, i_ - start), nullptr, false);
        if (cols != json(kColumns[t])) return false;
        columns = true;
      } else if (key == "rows") {
        if (!columns || !rows(t)) return false;
      } else if (!skip_value()) {
        return false;
      }
      ws();
      if (eat(',')) continue;
      return eat('}');
    }
  }

  bool rows(Table t) {
    if (!eat('[')) return false;
    ws();
    if (eat(']')) return true;
    Cell* cells = r_.row_cells();
    while (true) {
      ws();
      if (!eat('[')) return false;
      std::size_t n = 0;
      ws();
      if (!eat(']')) {
        while (true) {
          ws();
          if (n == Reader::kMaxCells || !cell(cells[n++])) return false;
          ws();
          if (eat(',')) continue;
          if (eat(']')) break;
          return false;
        }
      }
      if (!r_.commit_row(t, n)) return false;
      ws();
      if (eat(',')) continue;
      return eat(']');
    }
  }

  bool cell(Cell& c) {
    const char ch = peek();
    if (ch == '"') {
      std::string_view v;
      if (!string(v)) return false;
      c.kind = Cell::kString;
      c.s.assign(v);
      return true;
    }
    if (s_.substr(i_, 4) == "true") {
      c.kind = Cell::kBool;
      c.b = true;
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "false") {
      c.kind = Cell::kBool;
      c.b = false;
      i_ += 5;
      return true;
    }
    if (s_.substr(i_, 4) == "null") {
      c.kind = Cell::kNull;
      i_ += 4;
      return true;
    }
    const std::size_t start = i_;
    bool real = false;
    while (i_ < s_.size()) {
      const char d = s_[i_];
      if (d == '.' || d == 'e' || d == 'E') {
        real = true;
      } else if (!(d == '-' || d == '+' || (d >= '0' && d <= '9'))) {
        break;
      }
      ++i_;
    }
    if (i_ == start) return false;
    const char* b = s_.data() + start;
    const char* e = s_.data() + i_;
    if (!real) {
      const auto [p, ec] = std::from_chars(b, e, c.i);
      if (ec == std::errc() && p == e) {
        c.kind = Cell::kInt;
        return true;
      }
    }
    const auto [p, ec] = std::from_chars(b, e, c.d);
    if (ec != std::errc() || p != e) return false;
    c.kind = Cell::kDouble;
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  Reader& r_;
};

std::string line_col(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("line {}, column {}", line, col);
}

std::string seconds_text(double s) {
  std::string out = fmt::format("{:.3f}", s);
  return out;
}

// Summary metrics flattened to dotted keys; the audit is kept apart.
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
      out.push_back({key, x.dump()});
    } else if (x.is_number_float()) {
      const bool seconds = key.find("_s") != std::string::npos;
      out.push_back(
          {key, seconds ? seconds_text(x.get<double>()) : fmt::format("{:.4g}", x.get<double>())});
    } else if (x.is_boolean()) {
      out.push_back({key, x.get<bool>() ? "true" : "false"});
    } else if (x.is_string()) {
      out.push_back({key, x.get<std::string>()});
    }
  }
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
  for (const SeriesRow& s : r.series) {
    se.queued.t.push_back(s.t);
    se.queued.values.push_back(s.queued);
    se.scheduled.t.push_back(s.t);
    se.scheduled.values.push_back(s.scheduled);
    se.in_flight.t.push_back(s.t);
    se.in_flight.values.push_back(s.in_flight);
  }
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

Document fail(const std::string& path, const std::string& what) {
  Document d;
  d.error = path + ": " + what;
  return d;
}

Interval interval_of(const json& v) {
  Interval i;
  if (!v.is_object()) return i;
  auto num = [&](const char* k) {
    return v.contains(k) && v[k].is_number() ? v[k].get<double>() : 0.0;
  };
  i.n = v.contains("n") && v["n"].is_number_integer() ? v["n"].get<int>() : 0;
  if (!v.contains("mean") || !v["mean"].is_number()) i.n = 0;
  i.mean = num("mean");
  i.half_width = num("half_width");
  i.low = v.contains("low") && v["low"].is_number() ? num("low") : i.mean;
  i.high = v.contains("high") && v["high"].is_number() ? num("high") : i.mean;
  return i;
}

std::vector<NamedInterval> intervals_of(const json& metrics) {
  std::vector<NamedInterval> out;
  if (!metrics.is_object()) return out;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    out.push_back({it.key(), interval_of(it.value())});
  }
  return out;
}

Document read_sweep(const json& doc, const std::string& path) {
  if (!doc["axes"].is_array() || !doc["points"].is_array()) {
    return fail(path, "a sweep file needs arrays \"axes\" and \"points\"");
  }
  Sweep s;
  s.path = path;
  s.scenario = doc.value("scenario", std::string());
  s.seeds = doc.contains("seeds") && doc["seeds"].is_array() ? static_cast<int>(doc["seeds"].size())
                                                             : doc.value("seeds", 0);
  std::vector<std::vector<std::string>> axis_labels;
  for (const json& a : doc["axes"]) {
    s.axes.push_back(a.value("path", std::string("?")));
    std::vector<std::string> labels;
    if (a.contains("values") && a["values"].is_array()) {
      for (const json& v : a["values"])
        labels.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    axis_labels.push_back(std::move(labels));
  }
  std::map<std::string, bool> names;
  for (const json& p : doc["points"]) {
    SweepPointData pt;
    const json values = p.value("values", json::object());
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      const json v = values.value(s.axes[a], json(nullptr));
      const std::string label = v.is_string() ? v.get<std::string>() : v.dump();
      double x;
      if (v.is_number()) {
        x = v.get<double>();
      } else if (const auto d = v.is_string() ? parse_duration(label) : std::nullopt) {
        x = to_seconds(*d);
      } else {
        const auto& ls = axis_labels[a];
        x = static_cast<double>(std::find(ls.begin(), ls.end(), label) - ls.begin());
      }
      pt.x.push_back(x);
      pt.labels.push_back(label);
    }
    pt.metrics = intervals_of(p.value("metrics", json::object()));
    for (const NamedInterval& m : pt.metrics) names[m.metric] = true;
    s.points.push_back(std::move(pt));
  }
  for (const auto& [name, unused] : names) s.metrics.push_back(name);
  s.complete =
      !doc.contains("complete") || !doc["complete"].is_boolean() || doc["complete"].get<bool>();
  s.points_total = doc.contains("points_total") && doc["points_total"].is_number_integer()
                       ? doc["points_total"].get<int>()
                       : static_cast<int>(s.points.size());
  Document d;
  d.sweep = std::move(s);
  return d;
}

Document read_comparison(const json& doc, const std::string& path) {
  if (!doc["profiles"].is_array()) return fail(path, "a comparison needs an array \"profiles\"");
  Comparison c;
  c.path = path;
  c.scenario = doc.value("scenario", std::string());
  c.seeds = doc.contains("seeds") && doc["seeds"].is_array() ? static_cast<int>(doc["seeds"].size())
                                                             : doc.value("seeds", 0);
  if (doc.contains("metrics") && doc["metrics"].is_array()) {
    for (const json& m : doc["metrics"]) {
      if (m.is_string()) c.metrics.push_back(m.get<std::string>());
    }
  }
  for (const json& p : doc["profiles"]) {
    ProfileRow row;
    row.profile = p.value("profile", p.value("name", std::string("?")));
    row.metrics = intervals_of(p.value("metrics", json::object()));
    if (c.metrics.empty()) {
      for (const NamedInterval& m : row.metrics) c.metrics.push_back(m.metric);
    }
    c.profiles.push_back(std::move(row));
  }
  Document d;
  d.comparison = std::move(c);
  return d;
}

Document parse_or_throw(std::string_view text, const std::string& path);

}  // namespace

const char* to_string(PodState s) { return kStateNames[static_cast<int>(s)]; }
const char* to_string(MarkerKind k) { return kMarkerNames[static_cast<int>(k)]; }
const char* to_string(Outcome o) { return kOutcomeNames[static_cast<int>(o)]; }

double Steps::at(double time) const {
  const auto it = std::upper_bound(t.begin(), t.end(), time);
  if (it == t.begin()) return 0;
  return values[static_cast<std::size_t>(it - t.begin()) - 1];
}

const Interval* SweepPointData::metric(std::string_view name) const {
  for (const NamedInterval& m : metrics) {
    if (m.metric == name) return &m.value;
  }
  return nullptr;
}

const Interval* ProfileRow::metric(std::string_view name) const {
  for (const NamedInterval& m : metrics) {
    if (m.metric == name) return &m.value;
  }
  return nullptr;
}

Document parse_document(std::string_view text, const std::string& path) {
  try {
    return parse_or_throw(text, path);
  } catch (const nlohmann::json::exception& e) {
    // A field of an unexpected type (value() of the wrong type, get<>()).
    return fail(path, fmt::format("not a results, sweep or compare file of a shape this viewer "
                                  "reads: {}",
                                  e.what()));
  }
}

namespace {

Document parse_or_throw(std::string_view text, const std::string& path) {
  if (text.empty()) return fail(path, "the file is empty");
  std::optional<Reader> fast(std::in_place);
  Reader* used = &*fast;
  std::optional<Reader> slow;
  bool parsed = FastReader(text, *fast).read();
  if (!parsed) {
    fast.reset();
    slow.emplace();
    used = &*slow;
    parsed = json::sax_parse(text.begin(), text.end(), used);
  }
  Reader& r = *used;
  auto version_problem = [&]() -> std::string {
    if (r.schema_version.empty()) return {};
    int major = -1, minor = -1;
    char rest = 0;
    if (std::sscanf(r.schema_version.c_str(), "%d.%d%c", &major, &minor, &rest) != 2 ||
        major != kSchemaMajor) {
      return fmt::format(
          "results of schema_version \"{}\", which this viewer cannot read (it reads {}.x); "
          "use the drainsim-viewer of the drainsim that wrote it",
          r.schema_version, kSchemaMajor);
    }
    return {};
  };
  if (!parsed) {
    if (std::string v = version_problem(); !v.empty()) return fail(path, v);
    if (!r.error.empty()) return fail(path, r.error);
    if (r.parse_error_position >= text.size()) {
      return fail(path, fmt::format("the JSON ends early, at byte {} ({}): the file is truncated",
                                    text.size(), line_col(text, text.size())));
    }
    return fail(path, fmt::format("not valid JSON at byte {} ({}): {}", r.parse_error_position,
                                  line_col(text, r.parse_error_position), r.parse_error_message));
  }
  const json& doc = r.root;
  if (!doc.is_object())
    return fail(path, "not a drainsim results, sweep or compare file (not a JSON object)");
  if (doc.contains("axes") && doc.contains("points")) return read_sweep(doc, path);
  if (doc.contains("profiles") && doc["profiles"].is_array() && !doc.contains("summary")) {
    return read_comparison(doc, path);
  }
  if (!doc.contains("schema_version")) {
    return fail(path,
                "not a drainsim results, sweep or compare file (no \"schema_version\", "
                "\"axes\" or \"profiles\")");
  }
  if (!doc["schema_version"].is_string()) return fail(path, "schema_version is not a string");
  if (std::string v = version_problem(); !v.empty()) return fail(path, v);
  for (const char* key : {"summary", "pods", "scenario", "run"}) {
    if (!doc.contains(key)) return fail(path, fmt::format("a results file needs \"{}\"", key));
  }
  if (!doc["pods"].is_array() || !doc["summary"].is_object() || !doc["scenario"].is_object()) {
    return fail(path, "\"pods\" must be an array, \"summary\" and \"scenario\" objects");
  }

  Results run;
  run.path = path;
  run.schema_version = r.schema_version;
  run.drainsim_version = doc.value("drainsim_version", std::string());
  run.scenario_name = doc["scenario"].value("name", std::string());
  run.engine = doc.value("engine", std::string());
  run.result_hash = doc.value("result_hash", std::string());
  run.seed = doc.value("seed", std::uint64_t{0});
  if (doc.contains("profile") && doc["profile"].is_object()) {
    run.profile = doc["profile"].value("name", std::string());
  }
  run.ended_at = doc["run"].value("ended_at_s", 0.0);
  const json& scenario = doc["scenario"];
  if (scenario.contains("worker") && scenario["worker"].is_object()) {
    run.concurrency = scenario["worker"].value("concurrency", 1);
  }
  run.platform_kind = scenario.contains("platform") && scenario["platform"].is_object()
                          ? scenario["platform"].value("kind", std::string("kubernetes"))
                          : "kubernetes";

  flatten(doc["summary"], "", run.summary);
  if (doc["summary"].contains("audit") && doc["summary"]["audit"].is_object()) {
    const json& a = doc["summary"]["audit"];
    run.audit_ok = a.value("ok", false);
    run.audit_balance = a.value("balance", std::string());
    if (a.contains("errors") && a["errors"].is_array()) {
      for (const json& e : a["errors"]) {
        if (e.is_string()) run.audit_errors.push_back(e.get<std::string>());
      }
    }
  }
  if (doc.contains("warnings") && doc["warnings"].is_array()) {
    for (const json& w : doc["warnings"]) {
      if (w.is_string()) run.warnings.push_back(w.get<std::string>());
    }
  }

  if (!doc.contains("timeline")) {
    run.timeline_missing = "this run has no timeline: run drainsim with --timeline to record one";
  } else if (r.pod_states.empty() && r.attempts.empty() && r.series.empty()) {
    run.timeline_missing = "the timeline is empty: no pod state, attempt or series row";
  }
  if (run.timeline_missing.empty()) build_timeline(r, doc, run);
  Document d;
  d.run = std::move(run);
  return d;
}

}  // namespace

Document load_document(const std::string& path) {
  // Mapped, not read: a big timeline is not copied before it is scanned.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(path, "cannot open the file");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(path, "cannot read the file (not a regular file)");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return parse_document({}, path);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return fail(path, "cannot read the file");
  Document d = parse_document(std::string_view(static_cast<const char*>(map), size), path);
  ::munmap(map, size);
  return d;
}

Steps downsample(const Steps& s, double t0, double t1, int buckets) {
  Steps out;
  if (s.t.empty() || t1 <= t0 || buckets <= 0) return out;
  const auto begin = std::upper_bound(s.t.begin(), s.t.end(), t0) - s.t.begin();
  out.t.push_back(t0);
  out.values.push_back(s.at(t0));
  const double width = (t1 - t0) / buckets;
  std::size_t i = static_cast<std::size_t>(begin);
  while (i < s.t.size() && s.t[i] <= t1) {
    const int b = std::min(buckets - 1, static_cast<int>((s.t[i] - t0) / width));
    const double bucket_end = t0 + (b + 1) * width;
    std::size_t lo = i, hi = i, j = i;
    for (; j < s.t.size() && s.t[j] < bucket_end && s.t[j] <= t1; ++j) {
      if (s.values[j] < s.values[lo]) lo = j;
      if (s.values[j] > s.values[hi]) hi = j;
    }
    if (j == i) ++j;  // t == bucket_end by rounding: take it alone
    const std::size_t last = j - 1;
    std::size_t picks[4] = {i, std::min(lo, hi), std::max(lo, hi), last};
    std::size_t prev = SIZE_MAX;
    for (std::size_t p : picks) {
      if (p == prev) continue;
      out.t.push_back(s.t[p]);
      out.values.push_back(s.values[p]);
      prev = p;
    }
    i = j;
  }
  return out;
}

IndexRange visible(const Track& track, const std::vector<Attempt>& attempts, double t0, double t1) {
  IndexRange r;
  r.first = static_cast<std::size_t>(
      std::lower_bound(track.max_end.begin(), track.max_end.end(), t0) - track.max_end.begin());
  (void)attempts;
  r.last = static_cast<std::size_t>(std::upper_bound(track.start.begin(), track.start.end(), t1) -
                                    track.start.begin());
  r.last = std::max(r.last, r.first);
  return r;
}

}  // namespace drainsim::viewer
