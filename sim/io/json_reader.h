// Validated JSON input: read a JSON document into typed values, field by field, and fail
// with a message that names the input, the JSON path and what was expected, e.g.
//   scenarios/x.json: worker.grace_period: expected a duration like "25s", got -3
// Unknown fields are errors that suggest the nearest known name. Used by the scenario
// reader; nothing in it knows the scenario format.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/duration.h"
#include "base/names.h"

namespace drainsim {

// Bad input; the message says where and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A JSON value as messages show it: compact, cut when long (at most 60 characters). Only
// the part shown is visited: a long or deeply nested value costs no more than a short one.
std::string show(const nlohmann::json& v);

// --- Whole documents -------------------------------------------------------------------------

// The deepest nesting of arrays and objects a reader accepts: no drainsim file comes near
// it (a results timeline's rows are 4 deep), and it keeps the recursion of printing or
// comparing a value far from the stack's end.
constexpr int kMaxJsonDepth = 100;

// The file `path`, read whole (base/input_file.h: a regular file of at most `max_bytes`,
// `kind` naming it in the size message); InputError "PATH: cannot read: WHY" otherwise.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            const std::string& kind);

// `text`, all of it, as one JSON document (comments allowed when `comments`); InputError
// "SOURCE: not valid JSON: ..." for a syntax error (nlohmann's message, with its line and
// column), a NUL byte anywhere, a number too large for a double ("number overflow at line
// L, column C"), or nesting deeper than kMaxJsonDepth.
nlohmann::json parse_json(std::string_view text, std::string_view source, bool comments = false);

// parse_json without throwing: the value, or why there is none (the message after "not
// valid JSON: "); too_deep when that is why.
struct ParsedJson {
  std::optional<nlohmann::json> value;
  std::string error;
  bool too_deep = false;
};
ParsedJson try_parse_json(std::string_view text, bool comments = false);

// "a", "b", "c" (each quoted, comma-separated).
std::string quoted_list(const std::vector<std::string_view>& names);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Where messages point: the input's name, and the overrides applied to it (`--set
// PATH=VALUE`), so that an error at a path an override wrote says it came from there.
class Context {
 public:
  explicit Context(std::string_view source) : source_(source) {}

  void add_override(std::string path, std::string text) {
    overrides_.emplace_back(std::move(path), std::move(text));
  }

  // Throws InputError "SOURCE[ (--set ...)]: PATH: MESSAGE" ("SOURCE: MESSAGE" at the root).
  [[noreturn]] void fail(const std::string& path, std::string_view message) const;
  // fail(path, "expected WHAT, got VALUE").
  [[noreturn]] void expected(const std::string& path, std::string_view what,
                             const nlohmann::json& v) const;

 private:
  std::string source_;
  std::vector<std::pair<std::string, std::string>> overrides_;  // path, PATH=VALUE text
};

// Far beyond any real setting, and small enough that a few sums stay clear of overflow.
constexpr Duration kMaxDuration = 1'000'000 * kHour;
constexpr std::string_view kDurationLike = "a duration like \"25s\"";
constexpr double kInf = std::numeric_limits<double>::infinity();

// --- Single values, checked at a path ------------------------------------------------------

Duration to_duration(const Context& c, const nlohmann::json& v, const std::string& path,
                     Duration min = 0);
// A grace period (base/duration.h): "forever" (kNever), or a duration as to_duration.
Duration to_grace(const Context& c, const nlohmann::json& v, const std::string& path);

// A whole number as an integer. JSON Schema (and so the shipped schemas) counts 3.0 as an
// integer; so does the reader.
std::optional<std::int64_t> as_whole(const nlohmann::json& v);

std::int64_t to_integer(const Context& c, const nlohmann::json& v, const std::string& path,
                        std::int64_t min, std::int64_t max);

// A number in [min, max], or (min, max] when min_open.
struct Range {
  double min = 0;
  double max = kInf;
  bool min_open = false;
  std::string describe() const;
};

double to_number(const Context& c, const nlohmann::json& v, const std::string& path, Range r);

// --- Names ----------------------------------------------------------------------------------

// The spellings of `values`, from their enum's table (base/names.h).
template <class E>
std::vector<std::string_view> names_of(const std::vector<E>& values) {
  std::vector<std::string_view> out;
  for (E v : values) out.push_back(name_of(v));
  return out;
}

// The value of `values` that `v` names; fails naming the choices otherwise.
template <class E>
E choose(const Context& c, const nlohmann::json& v, const std::string& path,
         const std::vector<E>& values, std::string_view what) {
  if (v.is_string()) {
    for (E value : values) {
      if (name_of(value) == v.get_ref<const std::string&>()) return value;
    }
    c.fail(path, "unknown " + std::string(what) + ", expected one of " +
                     quoted_list(names_of(values)) + ", got " + show(v));
  }
  c.expected(path, std::string(what) + ": one of " + quoted_list(names_of(values)), v);
}

// A kind of object: its value, and the fields it accepts besides "kind".
template <class E>
struct KindFields {
  E value;
  std::vector<std::string_view> fields;
};

// --- Objects --------------------------------------------------------------------------------

// Reads one JSON object at a known path: typed fields (left unchanged when absent, so the
// caller's defaults stand), required fields, and unknown-field checks with suggestions.
class Reader {
 public:
  Reader(const Context& c, const nlohmann::json& j, std::string path);

  const Context& context() const { return c_; }
  const std::string& path() const { return path_; }
  std::string at(std::string_view key) const;
  const nlohmann::json* find(std::string_view key) const;

  // Fails on the first key not in `known`, naming the nearest known one when close.
  void allow(const std::vector<std::string_view>& known, std::string_view qualifier = "") const;

  // For objects whose fields depend on "kind": reads the kind, then allows only its fields
  // and the `common` ones.
  template <class E>
  E kind(const std::vector<KindFields<E>>& table, std::string_view what,
         std::vector<std::string_view> common = {}) const {
    std::vector<E> values;
    for (const KindFields<E>& row : table) values.push_back(row.value);
    need("kind", "one of " + quoted_list(names_of(values)));
    const E value = choose(c_, *find("kind"), at("kind"), values, what);
    std::vector<std::string_view> known = {"kind"};
    known.insert(known.end(), common.begin(), common.end());
    for (const KindFields<E>& row : table) {
      if (row.value == value) known.insert(known.end(), row.fields.begin(), row.fields.end());
    }
    allow(known, " for kind \"" + std::string(name_of(value)) + "\"");
    return value;
  }

  void need(std::string_view key, std::string_view what) const;
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  [[noreturn]] void expected(std::string_view key, std::string_view what) const;

  void duration(std::string_view key, Duration& out, Duration min = 0) const;
  template <class T>
  void integer(std::string_view key, T& out, std::int64_t min, std::int64_t max = INT_MAX) const {
    if (const nlohmann::json* v = find(key)) {
      out = static_cast<T>(to_integer(c_, *v, at(key), min, max));
    }
  }
  void number(std::string_view key, double& out, Range r) const;
  void boolean(std::string_view key, bool& out) const;
  void string(std::string_view key, std::string& out, bool non_empty = false) const;
  // One of `values` (default: every value of E).
  template <class E>
  void choice(std::string_view key, E& out, std::string_view what,
              const std::vector<E>& values = all_values<E>()) const {
    if (const nlohmann::json* v = find(key)) out = choose(c_, *v, at(key), values, what);
  }
  // A list of durations; REQUIRES: present.
  std::vector<Duration> durations(std::string_view key, bool non_empty, bool non_decreasing) const;
  // A nested object; REQUIRES: present.
  Reader object(std::string_view key) const { return Reader(c_, *find(key), at(key)); }
  // A list; REQUIRES: present.
  const nlohmann::json& array(std::string_view key, std::string_view what, bool non_empty) const;

 private:
  const Context& c_;
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace drainsim
