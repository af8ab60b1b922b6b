#include "io/json_reader.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/input_file.h"

namespace drainsim {

using json = nlohmann::json;

namespace {

bool starts_with_step(std::string_view path, std::string_view prefix) {
  return path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix &&
         (path[prefix.size()] == '.' || path[prefix.size()] == '[');
}

}  // namespace

namespace {

constexpr std::size_t kShown = 60;

// The compact dump of `v` appended to `out`, stopping once `out` is past kShown
// characters: each level adds a bracket, so the recursion is at most kShown deep.
void show_into(const json& v, std::string& out) {
  if (out.size() > kShown) return;
  const auto scalar = [&out](const json& x) {
    out += x.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  if (v.is_object() || v.is_array()) {
    out += v.is_object() ? '{' : '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out.size() <= kShown; ++it) {
      if (!first) out += ',';
      first = false;
      if (v.is_object()) {
        scalar(json(it.key().substr(0, kShown)));
        out += ':';
      }
      show_into(it.value(), out);
    }
    out += v.is_object() ? '}' : ']';
  } else if (v.is_string()) {
    scalar(json(v.get_ref<const std::string&>().substr(0, kShown)));
  } else {
    scalar(v);
  }
}

// Where the nesting of `text` first goes past `max` levels (skipping strings and, when
// `comments`, comments), or text.size().
std::size_t too_deep_at(std::string_view text, int max, bool comments) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) i += text[i] == '\\' ? 1 : 0;
    } else if (comments && c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), text.size());
    } else if (comments && c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = std::min(text.find("*/", i + 2), text.size()) + 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

// nlohmann's DOM builder, refusing to nest deeper than kMaxJsonDepth and keeping the
// first error instead of throwing it.
class BoundedDom {
 public:
  explicit BoundedDom(json& root) : dom_(root, /*allow_exceptions=*/false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return deeper() && dom_.start_object(n); }
  bool key(json::string_t& k) { return dom_.key(k); }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return deeper() && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    error_position = position;
    error_token = token;
    error_id = e.id;
    error_message = e.what();
    return false;
  }

  bool too_deep = false;
  std::size_t error_position = 0;
  std::string error_token, error_message;
  int error_id = 0;

 private:
  bool deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    too_deep = true;
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
};

}  // namespace

std::string show(const json& v) {
  std::string s;
  show_into(v, s);
  if (s.size() > kShown) s = s.substr(0, kShown - 3) + "...";
  return s;
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            const std::string& kind) {
  InputFile file(path, max_bytes, kind);
  std::optional<std::string> text;
  if (file.fd() >= 0) text = file.read_all();
  if (!text) throw InputError(fmt::format("{}: cannot read: {}", path, file.error()));
  return std::move(*text);
}

ParsedJson try_parse_json(std::string_view text, bool comments) {
  ParsedJson out;
  // nlohmann's lexer takes a NUL byte for the end of the input, and would ignore the rest.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    out.error = fmt::format("a NUL byte at {}", line_col(text, nul));
    return out;
  }
  json root;
  BoundedDom dom(root);
  if (json::sax_parse(text.begin(), text.end(), &dom, json::input_format_t::json,
                      /*strict=*/true, /*ignore_comments=*/comments)) {
    out.value = std::move(root);
    return out;
  }
  if (dom.too_deep) {
    out.too_deep = true;
    out.error = fmt::format("nested more than {} levels deep at {}", kMaxJsonDepth,
                            line_col(text, too_deep_at(text, kMaxJsonDepth, comments)));
    return out;
  }
  if (dom.error_id == 406) {  // out_of_range: a number too large for a double
    const std::size_t start =
        dom.error_position - std::min(dom.error_position, dom.error_token.size());
    out.error = fmt::format("number overflow at {}", line_col(text, start));
    return out;
  }
  // Drop nlohmann's "[json.exception.parse_error.101] " prefix; its "last read: '...'"
  // may quote a long token: cut it.
  std::string_view what = dom.error_message;
  if (const std::size_t end = what.find("] "); what.rfind("[json.", 0) == 0 && end != what.npos) {
    what.remove_prefix(end + 2);
  }
  out.error = std::string(what.substr(0, 200));
  if (what.size() > 200) out.error += "...";
  return out;
}

json parse_json(std::string_view text, std::string_view source, bool comments) {
  ParsedJson parsed = try_parse_json(text, comments);
  if (!parsed.value) throw InputError(fmt::format("{}: not valid JSON: {}", source, parsed.error));
  return std::move(*parsed.value);
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

Duration to_grace(const Context& c, const json& v, const std::string& path) {
  if (v.is_string() && v.get_ref<const std::string&>() == kForever) return kNever;
  return to_duration(c, v, path);
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
  if (!std::isfinite(max)) return fmt::format("a number {} {}", min_open ? ">" : ">=", min);
  if (min_open) return fmt::format("a number > {} and <= {}", min, max);
  return fmt::format("a number from {} to {}", min, max);
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
