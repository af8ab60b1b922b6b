// Inside the results reader: the timeline's rows as the reader streams them out of a
// results file, the SAX handler that does it (Reader), the fast scanner that does the same
// for big files, and what builds a Results or a Sweep/Comparison from them. Not for the
// widgets: they read reader/results_reader.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/job.h"
#include "base/pod_state.h"
#include "base/signal.h"
#include "base/timeline_schema.h"
#include "reader/results_reader.h"

namespace drainsim::viewer::detail {

using nlohmann::json;

// The spellings of the simulator's enum E (its names() table, base/names.h), each without
// its first `skip` characters, then the viewer's own extra values. All NUL-terminated.
template <class E, std::size_t Extra>
constexpr auto spellings(std::size_t skip, const std::array<const char*, Extra>& extra) {
  constexpr auto table = names(E{});
  std::array<const char*, table.size() + Extra> out{};
  for (std::size_t i = 0; i < table.size(); ++i) out[i] = table[i].data() + skip;
  for (std::size_t i = 0; i < Extra; ++i) out[table.size() + i] = extra[i];
  return out;
}

// The viewer's enums (reader/results_reader.h) follow the simulator's order: pod states as
// drainsim::PodState; markers as drainsim::Signal, without "SIG", then OOM (a SIGKILL from
// an oom_kill); outcomes as drainsim::Outcome, then duplicate (a completed attempt of a job
// that had completed before).
template <class Viewer, class Sim>
constexpr bool same_value(Viewer v, Sim s) {
  return static_cast<int>(v) == static_cast<int>(s);
}
static_assert(names(drainsim::PodState{}).size() == static_cast<std::size_t>(kPodStateCount));
static_assert(same_value(PodState::kStarting, drainsim::PodState::kStarting) &&
              same_value(PodState::kReady, drainsim::PodState::kReady) &&
              same_value(PodState::kQuiet, drainsim::PodState::kQuiet) &&
              same_value(PodState::kDraining, drainsim::PodState::kDraining) &&
              same_value(PodState::kTerminating, drainsim::PodState::kTerminating) &&
              same_value(PodState::kCrashed, drainsim::PodState::kCrashed) &&
              same_value(PodState::kGone, drainsim::PodState::kGone));
static_assert(same_value(MarkerKind::kTerm, drainsim::Signal::kTerm) &&
              same_value(MarkerKind::kInt, drainsim::Signal::kInt) &&
              same_value(MarkerKind::kTstp, drainsim::Signal::kTstp) &&
              same_value(MarkerKind::kCont, drainsim::Signal::kCont) &&
              same_value(MarkerKind::kKill, drainsim::Signal::kKill) &&
              same_value(MarkerKind::kQuit, drainsim::Signal::kQuit) &&
              static_cast<std::size_t>(MarkerKind::kOom) == names(drainsim::Signal{}).size());
static_assert(std::ranges::all_of(names(drainsim::Signal{}),
                                  [](std::string_view s) { return s.starts_with("SIG"); }));
static_assert(same_value(Outcome::kCompleted, drainsim::Outcome::kCompleted) &&
              same_value(Outcome::kFailed, drainsim::Outcome::kFailed) &&
              same_value(Outcome::kInterrupted, drainsim::Outcome::kInterrupted) &&
              same_value(Outcome::kKilled, drainsim::Outcome::kKilled) &&
              same_value(Outcome::kAbandoned, drainsim::Outcome::kAbandoned) &&
              same_value(Outcome::kCancelled, drainsim::Outcome::kCancelled) &&
              static_cast<std::size_t>(Outcome::kDuplicate) == names(drainsim::Outcome{}).size() &&
              static_cast<std::size_t>(kOutcomeCount) == names(drainsim::Outcome{}).size() + 1);

inline constexpr std::array<const char*, kPodStateCount> kStateNames =
    spellings<drainsim::PodState>(0, std::array<const char*, 0>{});
inline constexpr std::array<const char*, 7> kMarkerNames =
    spellings<drainsim::Signal>(3, std::array<const char*, 1>{"OOM"});  // "SIGTERM" -> "TERM"
inline constexpr std::array<const char*, kOutcomeCount> kOutcomeNames =
    spellings<drainsim::Outcome>(0, std::array<const char*, 1>{"duplicate"});

template <std::size_t N>
int index_of(const std::array<const char*, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<int>(i);
  }
  return -1;
}

// The deepest nesting of arrays and objects the reader takes (as the simulator's readers,
// io/json_reader.h): no drainsim file comes near it, and it bounds the recursion of
// printing or destroying what was read.
inline constexpr std::size_t kMaxDepth = 100;

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

// The timeline tables this reader uses, with the columns it expects (base/timeline_schema.h).
namespace ts = drainsim::timeline_schema;
enum Table : int { kPodStates, kSignals, kAttempts, kSeries, kTableCount, kIgnored = -1 };
template <std::size_t N>
std::vector<std::string> column_list(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}
inline const std::array<std::vector<std::string>, kTableCount> kColumns = {{
    column_list(ts::pod_states::kColumns),
    column_list(ts::signals::kColumns),
    column_list(ts::attempts::kColumns),
    column_list(ts::series::kColumns),
}};
inline Table table_of(std::string_view name) {
  if (name == ts::pod_states::kName) return kPodStates;
  if (name == ts::signals::kName) return kSignals;
  if (name == ts::attempts::kName) return kAttempts;
  if (name == ts::series::kName) return kSeries;
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
  // timeline.series as three step functions, each keeping only the rows where its value
  // changes (the queue of a busy fleet is 0 for millions of rows): the reference hour's
  // 10 M rows take 0.2 GB here instead of 0.8 GB as rows and then steps.
  Steps queued, scheduled, in_flight;
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
    if (frames_.size() >= kMaxDepth) return too_deep();
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
    if (frames_.size() >= kMaxDepth) return too_deep();
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

  // Called by the fast reader with the number of bytes of the text it has read and will not
  // read again, every few MB (load_document drops those pages of its mapping). May be empty.
  std::function<void(std::size_t)> consumed;

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
  static void add_step(Steps& s, double t, double v) {
    if (!s.values.empty() && s.values.back() == v) return;
    s.t.push_back(t);
    s.values.push_back(v);
  }
  bool nested() { return fail("a timeline cell holds an object or array"); }
  bool too_deep() {
    if (error.empty())
      error = fmt::format("not valid JSON: nested more than {} levels deep", kMaxDepth);
    return false;
  }
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

  // The index of `text` in `names`; -1 after failing with "row N: unknown WHAT".
  template <std::size_t N>
  int lookup(const std::array<const char*, N>& names, std::string_view text, const char* what) {
    const int i = index_of(names, text);
    if (i < 0) fail(fmt::format("row {}: unknown {} \"{}\"", rows_seen[table_], what, text));
    return i;
  }

  bool row() {
    bool ok = true;
    switch (table_) {
      case kPodStates: {
        namespace tp = ts::pod_states;
        if (!(ok = shape("nis"))) break;
        const int st = lookup(kStateNames, cells_[tp::kState].s, "pod state");
        if (!(ok = st >= 0)) break;
        pod_states.push_back({cells_[tp::kTime].num(), static_cast<int>(cells_[tp::kPod].i),
                              static_cast<PodState>(st)});
        break;
      }
      case kSignals: {
        namespace tg = ts::signals;
        if (!(ok = shape("nisbs"))) break;
        std::string_view sig = cells_[tg::kSignal].s;
        if (sig.starts_with("SIG")) sig.remove_prefix(3);
        int k = index_of(kMarkerNames, sig);
        if (k < 0 || k == static_cast<int>(MarkerKind::kOom)) {
          ok = fail(fmt::format("row {}: unknown signal \"{}\"", rows_seen[table_],
                                cells_[tg::kSignal].s));
          break;
        }
        if (k == static_cast<int>(MarkerKind::kKill) && cells_[tg::kSource].s == "oom") {
          k = static_cast<int>(MarkerKind::kOom);
        }
        signals.push_back({cells_[tg::kTime].num(), static_cast<int>(cells_[tg::kPod].i),
                           static_cast<MarkerKind>(k), cells_[tg::kDelivered].b,
                           cells_[tg::kSource].s});
        break;
      }
      case kAttempts: {
        namespace ta = ts::attempts;
        if (!(ok = shape("iiiiinns"))) break;
        const int o = lookup(kOutcomeNames, cells_[ta::kOutcome].s, "outcome");
        if (!(ok = o >= 0)) break;
        Attempt a;
        a.job = cells_[ta::kJob].i;
        a.attempt = static_cast<std::int32_t>(cells_[ta::kAttempt].i);
        a.pod = static_cast<std::int32_t>(cells_[ta::kPod].i);
        a.worker = static_cast<std::int32_t>(cells_[ta::kWorker].i);
        a.slot = static_cast<std::int32_t>(cells_[ta::kSlot].i);
        a.start = cells_[ta::kStart].num();
        a.end = cells_[ta::kEnd].num();
        a.outcome = static_cast<Outcome>(o);
        attempts.push_back(a);
        break;
      }
      case kSeries: {
        namespace tr = ts::series;
        if (!(ok = shape("nnnn"))) break;
        const double t = cells_[tr::kTime].num();
        add_step(queued, t, cells_[tr::kQueued].num());
        add_step(scheduled, t, cells_[tr::kScheduled].num());
        add_step(in_flight, t, cells_[tr::kInFlight].num());
        break;
      }
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

// The fast path (fast_scanner.cpp): true when it read the whole document into `r`; false
// when the file is anything unusual (the SAX reader then reads it and gives the precise
// message).
bool fast_read(std::string_view text, Reader& r);

// The lanes, series and windows of `run` from the streamed tables (run_model.cpp).
void build_timeline(Reader& r, const json& doc, Results& run);
// The summary metrics flattened to dotted keys, the audit left out (run_model.cpp).
void flatten(const json& v, const std::string& prefix, std::vector<SummaryRow>& out);

// A document that could not be read: "PATH: WHAT".
Document fail(const std::string& path, const std::string& what);
// A JSON value for a message: compact, cut at 60 characters. Values here come from a
// document nested at most kMaxDepth deep, so the dump is bounded in depth.
std::string shown(const json& v);
// The major number of a version "MAJOR.MINOR" (two whole numbers), nullopt for any other text.
std::optional<int> version_major(const std::string& text);
// The version of sweep and comparison files this viewer reads (1.x; a file without a
// schema_version was written before there was one, and is 1.0).
inline constexpr int kReportSchemaMajor = 1;
// A sweep's or a comparison's file (documents.cpp).
Document read_sweep(const json& doc, const std::string& path);
Document read_comparison(const json& doc, const std::string& path);

}  // namespace drainsim::viewer::detail
