#include "io/json_reader.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace drainsim {

using json = nlohmann::json;

namespace {

bool starts_with_step(std::string_view path, std::string_view prefix) {
  return path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix &&
         (path[prefix.size()] == '.' || path[prefix.size()] == '[');
}

}  // namespace

std::string show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string quoted_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}\"{}\"", out.empty() ? "" : ", ", n);
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

void Context::fail(const std::string& path, std::string_view message) const {
  std::string where = source_;
  for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
    const std::string& set = it->first;
    if (set == path || starts_with_step(set, path) || starts_with_step(path, set)) {
      where += fmt::format(" (--set {})", it->second);
      break;
    }
  }
  if (path.empty()) throw InputError(fmt::format("{}: {}", where, message));
  throw InputError(fmt::format("{}: {}: {}", where, path, message));
}

void Context::expected(const std::string& path, std::string_view what, const json& v) const {
  fail(path, fmt::format("expected {}, got {}", what, show(v)));
}

Duration to_duration(const Context& c, const json& v, const std::string& path, Duration min) {
  std::optional<Duration> d;
  if (v.is_string()) d = parse_duration(v.get_ref<const std::string&>());
  if (!d || *d < min) {
    c.expected(path, min > 0 ? "a positive duration like \"25s\"" : kDurationLike, v);
  }
  if (*d > kMaxDuration) c.expected(path, "a duration of at most 1000000h", v);
  return *d;
}

std::optional<std::int64_t> as_whole(const json& v) {
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return v.get<std::int64_t>();
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (x == std::floor(x) && std::fabs(x) <= 0x1p53) return static_cast<std::int64_t>(x);
  }
  return std::nullopt;
}

std::int64_t to_integer(const Context& c, const json& v, const std::string& path, std::int64_t min,
                        std::int64_t max) {
  const std::optional<std::int64_t> x = as_whole(v);
  if (!x || *x < min || *x > max) {
    c.expected(path,
               max >= INT_MAX ? fmt::format("an integer >= {}", min)
                              : fmt::format("an integer from {} to {}", min, max),
               v);
  }
  return *x;
}

std::string Range::describe() const {
  if (std::isfinite(max)) return fmt::format("a number from {} to {}", min, max);
  return fmt::format("a number {} {}", min_open ? ">" : ">=", min);
}

double to_number(const Context& c, const json& v, const std::string& path, Range r) {
  if (!v.is_number()) c.expected(path, r.describe(), v);
  const double x = v.get<double>();
  if (x < r.min || (r.min_open && x == r.min) || x > r.max) c.expected(path, r.describe(), v);
  return x;
}

Reader::Reader(const Context& c, const json& j, std::string path)
    : c_(c), j_(j), path_(std::move(path)) {
  if (!j.is_object()) c_.expected(path_, "an object", j);
}

std::string Reader::at(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

const json* Reader::find(std::string_view key) const {
  auto it = j_.find(std::string(key));
  return it == j_.end() ? nullptr : &*it;
}

void Reader::allow(const std::vector<std::string_view>& known, std::string_view qualifier) const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    const std::string& key = it.key();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string_view best;
    std::size_t best_distance = SIZE_MAX;
    for (std::string_view k : known) {
      const std::size_t d = edit_distance(key, k);
      if (d < best_distance) best = k, best_distance = d;
    }
    const std::string what = fmt::format("unknown field{}", qualifier);
    if (best_distance <= std::max<std::size_t>(1, best.size() / 3)) {
      c_.fail(at(key), fmt::format("{}, did you mean \"{}\"?", what, best));
    }
    c_.fail(at(key), fmt::format("{}, expected one of {}", what, quoted_list(known)));
  }
}

void Reader::need(std::string_view key, std::string_view what) const {
  if (!find(key)) c_.fail(at(key), fmt::format("required field missing, expected {}", what));
}

void Reader::fail(std::string_view key, std::string_view message) const {
  c_.fail(at(key), message);
}

void Reader::expected(std::string_view key, std::string_view what) const {
  c_.expected(at(key), what, *find(key));
}

void Reader::duration(std::string_view key, Duration& out, Duration min) const {
  if (const json* v = find(key)) out = to_duration(c_, *v, at(key), min);
}

void Reader::number(std::string_view key, double& out, Range r) const {
  if (const json* v = find(key)) out = to_number(c_, *v, at(key), r);
}

void Reader::boolean(std::string_view key, bool& out) const {
  if (const json* v = find(key)) {
    if (!v->is_boolean()) expected(key, "true or false");
    out = v->get<bool>();
  }
}

void Reader::string(std::string_view key, std::string& out, bool non_empty) const {
  if (const json* v = find(key)) {
    if (!v->is_string() || (non_empty && v->get_ref<const std::string&>().empty())) {
      expected(key, non_empty ? "a non-empty string" : "a string");
    }
    out = v->get<std::string>();
  }
}

std::vector<Duration> Reader::durations(std::string_view key, bool non_empty,
                                        bool non_decreasing) const {
  const json& v = *find(key);
  if (!v.is_array() || (non_empty && v.empty())) {
    expected(key, fmt::format("a {}list of {} like [\"1s\", \"2s\"]", non_empty ? "non-empty " : "",
                              non_decreasing ? "times" : "durations"));
  }
  std::vector<Duration> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string item = fmt::format("{}[{}]", at(key), i);
    out.push_back(to_duration(c_, v[i], item));
    if (non_decreasing && i > 0 && out[i] < out[i - 1]) {
      c_.expected(item, fmt::format("a time >= the previous one ({})", format_duration(out[i - 1])),
                  v[i]);
    }
  }
  return out;
}

const json& Reader::array(std::string_view key, std::string_view what, bool non_empty) const {
  const json& v = *find(key);
  if (!v.is_array() || (non_empty && v.empty())) expected(key, what);
  return v;
}

}  // namespace drainsim
