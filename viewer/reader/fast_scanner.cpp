// The fast path for big results files (reader_internal.h, fast_read).
#include <charconv>

#include "reader/reader_internal.h"

namespace drainsim::viewer::detail {

namespace {

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
        if ((d == '{' || d == '[') && ++depth > static_cast<int>(kMaxDepth)) return false;
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
      if (r_.consumed && i_ - reported_ >= kReportEvery) {
        r_.consumed(i_);
        reported_ = i_;
      }
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

  static constexpr std::size_t kReportEvery = 16 << 20;

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t reported_ = 0;  // what r_.consumed last heard
  Reader& r_;
};

}  // namespace

bool fast_read(std::string_view text, Reader& r) { return FastReader(text, r).read(); }

}  // namespace drainsim::viewer::detail
