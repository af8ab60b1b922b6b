#include "io/duration_data.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/parse.h"
#include "io/json_reader.h"
#include "profiles/profile.h"

namespace drainsim {

using nlohmann::json;

namespace {
// Unity builds put this file beside the layer's others: its helpers have a namespace of
// their own.
namespace durations_io {

constexpr double kMaxSeconds = static_cast<double>(kMaxDuration) / kSecond;

[[noreturn]] void fail(const std::string& file, std::string_view what) {
  throw InputError(fmt::format("{}: {}", file, what));
}

[[noreturn]] void fail_at(const std::string& file, std::size_t line, std::string_view what) {
  throw InputError(fmt::format("{}: line {}: {}", file, line, what));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A piece of the input as messages quote it: at most 40 characters, control bytes shown.
std::string in_quotes(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 40)) {
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f
               ? fmt::format("\\x{:02x}", static_cast<unsigned char>(c))
               : std::string(1, c);
  }
  return fmt::format("\"{}{}\"", out, s.size() > 40 ? "..." : "");
}

struct Line {
  std::size_t number = 0;  // from 1
  std::string_view text;   // without its end of line
};

std::vector<Line> lines_of(const std::string& text) {
  std::vector<Line> out;
  std::size_t at = 0;
  for (std::size_t n = 1; at < text.size(); ++n) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view l(text.data() + at, end - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back({n, l});
    at = end + 1;
  }
  return out;
}

// A count or a number of jobs as people write it: 12, 1.5.
std::string number(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) {
    return fmt::format("{}", static_cast<std::int64_t>(v));
  }
  return fmt::format("{:g}", v);
}

std::string duration_text(double seconds) { return format_duration(from_seconds(seconds)); }

std::string percent(double share) {
  if (share == 0) return "0 %";
  return share * 100 >= 0.1 ? fmt::format("{:.1f} %", share * 100)
                            : fmt::format("{:.2g} %", share * 100);
}

// A duration in a list or a log: seconds ("1.5", or a number of milliseconds when
// `divisor` is 1000), or with a unit ("250ms", "1.5s", "1m30s"). The seconds, or why not.
struct Value {
  double seconds = 0;
  std::string error;  // "expected ..., got ..."
};

Value duration_value(std::string_view text, double divisor = 1) {
  std::string_view t = trim(text);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = trim(t.substr(1, t.size() - 2));
  if (t.empty()) return {0, "expected a duration, got nothing"};
  const std::string_view unsigned_part = t.front() == '+' || t.front() == '-' ? t.substr(1) : t;
  std::optional<double> v = parse_number<double>(unsigned_part);
  if (v) {
    *v /= divisor;
  } else if (const std::optional<Duration> d = parse_duration(unsigned_part)) {
    v = to_seconds(*d);
  } else {
    return {0,
            fmt::format("expected a duration in seconds (1.5) or with a unit (250ms, 1.5s), got {}",
                        in_quotes(t))};
  }
  if (t.front() == '-' && *v != 0) {
    return {0, fmt::format("expected a duration >= 0, got {}", in_quotes(t))};
  }
  if (*v > kMaxSeconds) {
    return {0, fmt::format("expected a duration of at most {}, got {}",
                           format_duration(kMaxDuration), in_quotes(t))};
  }
  return {*v, ""};
}

// --- Prometheus text exposition ----------------------------------------------------------

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
};

// `{a="x",b="y"}` with the label values escaped as the format writes them; "" when none.
std::string render(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (const auto& [k, v] : labels) {
    if (out.size() > 1) out += ',';
    out += k + "=\"";
    for (const char c : v) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    out += '"';
  }
  return out + "}";
}

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return name_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

std::optional<double> prom_number(std::string_view s) {
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  return parse_number<double>(s);
}

// One sample line, `name{labels} value [timestamp]`; false with `why` set when it is not.
bool parse_sample(std::string_view l, Sample& out, std::string& why) {
  std::size_t i = 0;
  while (i < l.size() && (name_char(l[i]) || l[i] == ':')) ++i;
  if (i == 0 || !(name_start(l[0]) || l[0] == ':')) {
    why = "expected a metric name";
    return false;
  }
  out.name = std::string(l.substr(0, i));
  out.labels.clear();
  const auto skip = [&] {
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  };
  skip();
  if (i < l.size() && l[i] == '{') {
    ++i;
    while (true) {
      skip();
      if (i < l.size() && l[i] == '}') {
        ++i;
        break;
      }
      const std::size_t start = i;
      while (i < l.size() && name_char(l[i])) ++i;
      if (i == start || !name_start(l[start])) {
        why = "expected a label name";
        return false;
      }
      std::string key(l.substr(start, i - start));
      skip();
      if (i >= l.size() || l[i] != '=') {
        why = fmt::format("expected = after the label {}", key);
        return false;
      }
      ++i;
      skip();
      if (i >= l.size() || l[i] != '"') {
        why = fmt::format("expected the label {}'s value in double quotes", key);
        return false;
      }
      ++i;
      std::string value;
      bool closed = false;
      for (; i < l.size(); ++i) {
        if (l[i] == '"') {
          closed = true;
          ++i;
          break;
        }
        if (l[i] == '\\' && i + 1 < l.size()) {
          const char e = l[++i];
          value += e == 'n' ? '\n' : e;
        } else {
          value += l[i];
        }
      }
      if (!closed) {
        why = fmt::format("the label {}'s value has no closing quote", key);
        return false;
      }
      out.labels.emplace_back(std::move(key), std::move(value));
      skip();
      if (i < l.size() && l[i] == ',') {
        ++i;
      } else if (i >= l.size() || l[i] != '}') {
        why = "expected , or } after a label";
        return false;
      }
    }
  }
  skip();
  const std::string_view rest = trim(l.substr(i));
  const std::size_t space = rest.find_first_of(" \t");
  const std::string_view value = rest.substr(0, space);
  const std::string_view stamp =
      space == std::string_view::npos ? std::string_view() : trim(rest.substr(space));
  const std::optional<double> v = prom_number(value);
  if (!v) {
    why = fmt::format("expected a value, got {}", in_quotes(value));
    return false;
  }
  if (!stamp.empty() &&
      !parse_number<std::int64_t>(stamp[0] == '-' ? stamp.substr(1) : stamp).has_value()) {
    why = fmt::format("expected a value and an optional timestamp, got {}", in_quotes(rest));
    return false;
  }
  out.value = *v;
  return true;
}

struct PromBucket {
  double le = 0;
  std::string le_text;
  double cumulative = 0;
  std::size_t line = 0;
};

struct PromSeries {
  std::string labels;  // rendered, without le
  Labels label_list;
  std::vector<PromBucket> buckets;
  std::optional<double> sum, count;
};

struct PromFamily {
  std::string name;
  bool declared = false;  // # TYPE name histogram
  std::vector<PromSeries> series;
  std::map<std::string, std::size_t> index;  // by labels

  PromSeries& at(const Labels& labels) {
    const std::string key = render(labels);
    const auto [it, added] = index.emplace(key, series.size());
    if (added) series.push_back({key, labels, {}, {}, {}});
    return series[it->second];
  }
  bool has_buckets() const {
    return std::any_of(series.begin(), series.end(),
                       [](const PromSeries& s) { return !s.buckets.empty(); });
  }
};

// `queue="default",worker="X"` (quotes optional): each label=value a series must have.
Labels parse_matchers(std::string_view text) {
  Labels out;
  std::size_t i = 0;
  const auto bad = [&] {
    throw InputError(
        fmt::format("--match {}: expected label=\"value\", several separated by commas "
                    "(queue=\"default\",worker=\"ImportJob\")",
                    in_quotes(text)));
  };
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size()) break;
    const std::size_t start = i;
    while (i < text.size() && name_char(text[i])) ++i;
    if (i == start || !name_start(text[start])) bad();
    std::string key(text.substr(start, i - start));
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size() || text[i] != '=') bad();
    ++i;
    while (i < text.size() && text[i] == ' ') ++i;
    std::string value;
    if (i < text.size() && text[i] == '"') {
      bool closed = false;
      for (++i; i < text.size(); ++i) {
        if (text[i] == '"') {
          closed = true;
          ++i;
          break;
        }
        if (text[i] == '\\' && i + 1 < text.size()) {
          const char e = text[++i];
          value += e == 'n' ? '\n' : e;
        } else {
          value += text[i];
        }
      }
      if (!closed) bad();
    } else {
      while (i < text.size() && text[i] != ',') value += text[i++];
      value = std::string(trim(value));
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  if (out.empty()) bad();
  return out;
}

std::string listed(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 8;
  std::vector<std::string> shown(items.begin(),
                                 items.begin() + static_cast<long>(std::min(items.size(), kShown)));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (items.size() > kShown) out += fmt::format(" and {} more", items.size() - kShown);
  return out;
}

DurationData read_prometheus(const std::string& file, const std::string& text,
                             const DurationReadOptions& options) {
  std::vector<PromFamily> families;
  std::map<std::string, std::size_t> by_name;
  const auto family = [&](const std::string& name) -> PromFamily& {
    const auto [it, added] = by_name.emplace(name, families.size());
    if (added) families.push_back({name, false, {}, {}});
    return families[it->second];
  };
  Sample s;
  std::string why;
  for (const Line& line : lines_of(text)) {
    const std::string_view l = trim(line.text);
    if (l.empty()) continue;
    if (l[0] == '#') {
      // "# TYPE name histogram"; HELP, EOF and other comments say nothing read here.
      const std::string_view rest = trim(l.substr(1));
      if (starts_with(rest, "TYPE ")) {
        const std::string_view t = trim(rest.substr(5));
        const std::size_t space = t.find_first_of(" \t");
        if (space != std::string_view::npos && trim(t.substr(space)) == "histogram") {
          family(std::string(t.substr(0, space))).declared = true;
        }
      }
      continue;
    }
    if (!parse_sample(l, s, why)) {
      fail_at(file, line.number,
              fmt::format("expected a sample like NAME{{LABELS}} VALUE: {}", why));
    }
    const std::string shown_sample = s.name + render(s.labels);
    const auto count_ok = [&] {
      if (!(s.value >= 0) || std::isinf(s.value)) {
        fail_at(file, line.number,
                fmt::format("{}: expected a count >= 0, got {}", shown_sample, number(s.value)));
      }
    };
    if (ends_with(s.name, "_bucket")) {
      const auto le = std::find_if(s.labels.begin(), s.labels.end(),
                                   [](const auto& kv) { return kv.first == "le"; });
      if (le == s.labels.end()) {
        fail_at(file, line.number,
                fmt::format("{}: a bucket without an le label: expected {}{{...,le=\"0.5\"}} COUNT",
                            shown_sample, s.name));
      }
      const std::optional<double> bound = prom_number(le->second);
      if (!bound || std::isnan(*bound) || *bound < 0) {
        fail_at(file, line.number,
                fmt::format("{}: expected le to be a number of seconds >= 0 or \"+Inf\", got {}",
                            shown_sample, in_quotes(le->second)));
      }
      if (std::isfinite(*bound) && *bound > kMaxSeconds) {
        fail_at(file, line.number,
                fmt::format("{}: le {} is longer than the longest duration drainsim takes ({})",
                            shown_sample, in_quotes(le->second), format_duration(kMaxDuration)));
      }
      count_ok();
      const std::string le_text = le->second;
      s.labels.erase(le);
      std::sort(s.labels.begin(), s.labels.end());
      family(s.name.substr(0, s.name.size() - 7))
          .at(s.labels)
          .buckets.push_back({*bound, le_text, s.value, line.number});
    } else if (ends_with(s.name, "_count")) {
      count_ok();
      std::sort(s.labels.begin(), s.labels.end());
      family(s.name.substr(0, s.name.size() - 6)).at(s.labels).count = s.value;
    } else if (ends_with(s.name, "_sum")) {
      std::sort(s.labels.begin(), s.labels.end());
      family(s.name.substr(0, s.name.size() - 4)).at(s.labels).sum = s.value;
    }
  }

  std::vector<const PromFamily*> histograms;
  std::vector<std::string> names, declared;
  for (const PromFamily& f : families) {
    if (f.has_buckets()) {
      histograms.push_back(&f);
      names.push_back(f.name);
    } else if (f.declared) {
      declared.push_back(f.name);
    }
  }
  if (histograms.empty()) {
    fail(file,
         fmt::format("no histogram buckets: expected lines like NAME_bucket{{le=\"0.5\"}} 12, "
                     "a Prometheus histogram's cumulative counts{}",
                     declared.empty() ? std::string()
                                      : fmt::format(" ({} declared a histogram, without buckets)",
                                                    fmt::join(declared, ", "))));
  }
  const PromFamily* chosen = nullptr;
  std::string metric_note;  // how it was chosen, when not by --metric or as the only one
  if (!options.metric.empty()) {
    std::string want = options.metric;
    if (ends_with(want, "_bucket")) want.resize(want.size() - 7);
    for (const PromFamily* f : histograms) {
      if (f->name == want) chosen = f;
    }
    if (chosen == nullptr) {
      fail(file, fmt::format("no histogram named {} (--metric): the file has {}",
                             in_quotes(options.metric), listed(names)));
    }
  } else if (histograms.size() > 1) {
    // The one named for the jobs' runtime, when exactly one is (yabeda-sidekiq serves
    // sidekiq_job_runtime_seconds beside sidekiq_job_latency_seconds, the wait before it).
    std::vector<const PromFamily*> runtimes;
    for (const PromFamily* f : histograms) {
      const std::string n = lower(f->name);
      const auto has = [&](std::string_view w) { return n.find(w) != std::string::npos; };
      if ((has("runtime") || has("duration") || has("elapsed") || has("execution")) &&
          !has("latency") && !has("wait") && !has("queue_time")) {
        runtimes.push_back(f);
      }
    }
    if (runtimes.size() != 1) {
      fail(file, fmt::format("{} histograms ({}): pass --metric NAME to choose one",
                             histograms.size(), listed(names)));
    }
    chosen = runtimes.front();
    std::vector<std::string> others;
    for (const std::string& n : names) {
      if (n != chosen->name) others.push_back(n);
    }
    metric_note = fmt::format(" (the histogram named for the jobs' runtime; --metric to read {})",
                              listed(others));
  } else {
    chosen = histograms.front();
  }

  const Labels matchers = options.match.empty() ? Labels() : parse_matchers(options.match);
  std::vector<const PromSeries*> matched;
  std::vector<std::string> all, kept;
  for (const PromSeries& series : chosen->series) {
    if (series.buckets.empty()) continue;
    all.push_back(chosen->name + series.labels);
    const bool ok = std::all_of(matchers.begin(), matchers.end(), [&](const auto& m) {
      return std::find(series.label_list.begin(), series.label_list.end(), m) !=
             series.label_list.end();
    });
    if (ok) {
      matched.push_back(&series);
      kept.push_back(chosen->name + series.labels);
    }
  }
  if (matched.empty()) {
    fail(file, fmt::format("no series of {} matches --match '{}': it has {}", chosen->name,
                           options.match, listed(all)));
  }
  // Several series (a job class, a pod each): without --match, those of the worker's
  // queues when they are labelled by queue. They are the same worker's jobs, so they are
  // summed, bucket by bucket: their mixture, each weighed by its own count.
  std::string series_note;
  const auto queue_of = [](const PromSeries& x) -> std::optional<std::string> {
    for (const auto& [k, v] : x.label_list) {
      if (k == "queue" || k == "queue_name") return v;
    }
    return std::nullopt;
  };
  if (matched.size() > 1 && options.match.empty() && !options.queues.empty() &&
      std::all_of(matched.begin(), matched.end(),
                  [&](const PromSeries* x) { return queue_of(*x).has_value(); })) {
    std::vector<const PromSeries*> theirs;
    for (const PromSeries* x : matched) {
      const std::string q = *queue_of(*x);
      if (std::find(options.queues.begin(), options.queues.end(), q) != options.queues.end()) {
        theirs.push_back(x);
      }
    }
    if (theirs.empty()) {
      fail(file, fmt::format("no series of {} has one of the worker's queues ({}): it has {}: "
                             "pass --match 'label=\"value\",...' to choose",
                             chosen->name, fmt::join(options.queues, ", "), listed(all)));
    }
    if (theirs.size() < matched.size()) {
      series_note = fmt::format(" of the worker's queues ({})", fmt::join(options.queues, ", "));
    }
    matched = theirs;
  }

  // Each series' buckets in increasing le, checked: one bucket per le, cumulative counts.
  const auto checked = [&](const PromSeries& series) {
    const std::string series_name = chosen->name + series.labels;
    std::vector<PromBucket> b = series.buckets;
    std::stable_sort(b.begin(), b.end(),
                     [](const PromBucket& x, const PromBucket& y) { return x.le < y.le; });
    for (std::size_t i = 1; i < b.size(); ++i) {
      if (b[i].le == b[i - 1].le) {
        const PromBucket& second = b[i].line > b[i - 1].line ? b[i] : b[i - 1];
        const PromBucket& first = b[i].line > b[i - 1].line ? b[i - 1] : b[i];
        fail_at(file, second.line,
                fmt::format("{}: a second bucket le=\"{}\" (the first on line {})", series_name,
                            second.le_text, first.line));
      }
      if (b[i].cumulative < b[i - 1].cumulative) {
        fail_at(file, b[i].line,
                fmt::format("{}: le=\"{}\" counts {} jobs, fewer than le=\"{}\" (line {}) with "
                            "{}: expected cumulative counts, each bucket counting every job at "
                            "or below its le",
                            series_name, b[i].le_text, number(b[i].cumulative), b[i - 1].le_text,
                            b[i - 1].line, number(b[i - 1].cumulative)));
      }
    }
    if (std::isinf(b.front().le)) {
      fail_at(file, b.front().line,
              fmt::format("{}: only the le=\"+Inf\" bucket: expected buckets with finite le, as "
                          "the durations are unknown without them",
                          series_name));
    }
    return b;
  };
  std::vector<PromBucket> b = checked(*matched.front());
  PromSeries series = *matched.front();  // the sum of the series: its _sum and _count
  for (std::size_t k = 1; k < matched.size(); ++k) {
    const PromSeries& x = *matched[k];
    const std::vector<PromBucket> more = checked(x);
    const bool same =
        more.size() == b.size() &&
        std::equal(more.begin(), more.end(), b.begin(),
                   [](const PromBucket& p, const PromBucket& q) { return p.le == q.le; });
    if (!same) {
      fail(file, fmt::format("{}{} and {}{} have different buckets, so they cannot be summed: "
                             "pass --match 'label=\"value\",...' to choose one",
                             chosen->name, matched.front()->labels, chosen->name, x.labels));
    }
    for (std::size_t i = 0; i < b.size(); ++i) b[i].cumulative += more[i].cumulative;
    series.sum = series.sum && x.sum ? std::optional<double>(*series.sum + *x.sum) : std::nullopt;
    series.count =
        series.count && x.count ? std::optional<double>(*series.count + *x.count) : std::nullopt;
  }
  std::vector<std::string> summed;
  for (const PromSeries* x : matched) summed.push_back(x->labels);
  const std::string series_name =
      matched.size() == 1
          ? chosen->name + series.labels +
                (series_note.empty() ? "" : fmt::format(" (the series{})", series_note))
          : fmt::format("{}, {} series summed{} ({})", chosen->name, matched.size(), series_note,
                        listed(summed));

  DurationData d;
  d.file = file;
  d.format = "Prometheus histogram";
  d.source = series_name + metric_note;
  // Prometheus' base unit is the second; a histogram named in milliseconds is read as such.
  const double divisor =
      ends_with(chosen->name, "_milliseconds") || ends_with(chosen->name, "_ms") ? 1000 : 1;
  if (divisor != 1) d.source += " (milliseconds)";
  double previous = 0;
  for (const PromBucket& x : b) {
    d.buckets.push_back({x.le / divisor, x.cumulative - previous});
    previous = x.cumulative;
  }
  const double total = b.back().cumulative;
  if (!std::isinf(b.back().le) && series.count && *series.count > total) {
    // No +Inf bucket: the _count says how many jobs took longer than the last le.
    d.buckets.push_back({std::numeric_limits<double>::infinity(), *series.count - total});
  }
  double jobs = 0;
  for (const DurationBucket& x : d.buckets) jobs += x.count;
  if (jobs == 0) fail(file, fmt::format("{}: no jobs: every bucket counts 0", series_name));
  if (series.sum) d.sum = *series.sum / divisor;
  d.count = series.count ? *series.count : jobs;
  d.count_source = matched.size() > 1
                       ? fmt::format("{}_{} of the {} series", chosen->name,
                                     series.count ? "count" : "bucket{le=\"+Inf\"}", matched.size())
                   : series.count
                       ? chosen->name + "_count" + series.labels
                       : fmt::format("{}_bucket{{le=\"{}\"}}", chosen->name, b.back().le_text);
  return d;
}

// --- CSV and JSON lists ------------------------------------------------------------------

// The fields of a CSV line: `delimiter`-separated, double quotes around a field allowed.
std::vector<std::string> csv_fields(std::string_view l, char delimiter) {
  std::vector<std::string> out(1);
  bool quoted_field = false;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (quoted_field) {
      if (c == '"' && i + 1 < l.size() && l[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted_field = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted_field = true;
    } else if (c == delimiter) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  for (std::string& f : out) f = std::string(trim(f));
  return out;
}

DurationData read_csv(const std::string& file, const std::string& text) {
  DurationData d;
  d.file = file;
  d.format = "CSV";
  const std::vector<Line> lines = lines_of(text);
  std::size_t first = 0;
  while (first < lines.size() &&
         (trim(lines[first].text).empty() || trim(lines[first].text)[0] == '#')) {
    ++first;
  }
  if (first == lines.size()) fail(file, "only comments: expected one duration per line");
  const std::string_view head = lines[first].text;
  const char delimiter = head.find(',') != std::string_view::npos   ? ','
                         : head.find(';') != std::string_view::npos ? ';'
                                                                    : '\t';
  const std::vector<std::string> header = csv_fields(head, delimiter);
  // A header: a field that is no duration, negative or not.
  const bool has_header = std::any_of(header.begin(), header.end(), [](const std::string& f) {
    return !duration_value(!f.empty() && f[0] == '-' ? f.substr(1) : f).error.empty();
  });
  std::size_t column = 0;
  double divisor = 1;
  if (has_header) {
    if (header.size() > 1) {
      column = header.size();
      for (const char* want : {"duration", "elapsed", "runtime", "seconds", "took"}) {
        for (std::size_t i = 0; i < header.size() && column == header.size(); ++i) {
          if (lower(header[i]).find(want) != std::string::npos) column = i;
        }
      }
      if (column == header.size()) {
        fail_at(file, lines[first].number,
                fmt::format("no column named like duration, elapsed, runtime or seconds among "
                            "{}: expected one holding the jobs' durations",
                            fmt::join(header, ", ")));
      }
    }
    const std::string name = lower(header[column]);
    if (ends_with(name, "_ms") || ends_with(name, "(ms)") ||
        name.find("millis") != std::string::npos) {
      divisor = 1000;
    }
    d.source = fmt::format("column {}{}", header[column], divisor == 1 ? "" : ", milliseconds");
    ++first;
  } else if (header.size() > 1) {
    fail_at(file, lines[first].number,
            fmt::format("{} columns and no header: expected one duration per line, or a header "
                        "naming the duration column",
                        header.size()));
  }
  for (std::size_t i = first; i < lines.size(); ++i) {
    const std::string_view l = trim(lines[i].text);
    if (l.empty() || l[0] == '#') continue;
    const std::vector<std::string> fields = csv_fields(l, delimiter);
    if (column >= fields.size()) {
      fail_at(file, lines[i].number,
              fmt::format("expected {} columns as the header has, got {}", header.size(),
                          fields.size()));
    }
    const Value v = duration_value(fields[column], divisor);
    if (!v.error.empty()) fail_at(file, lines[i].number, v.error);
    d.values.push_back(v.seconds);
  }
  if (d.values.empty()) fail(file, "a header and no durations: expected one per line below it");
  return d;
}

DurationData read_json_list(const std::string& file, const std::string& text) {
  const json doc = parse_json(text, file);
  if (!doc.is_array()) {
    fail(file,
         fmt::format("expected a JSON list of durations like [0.5, \"3s\"], got {}", show(doc)));
  }
  if (doc.empty()) fail(file, "an empty list: expected at least one duration");
  DurationData d;
  d.file = file;
  d.format = "JSON list";
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const json& v = doc[i];
    Value value;
    if (v.is_number()) {
      const double s = v.get<double>();
      value = duration_value(fmt::format("{}", s));
      if (s < 0) value.error = fmt::format("expected a duration >= 0, got {}", show(v));
    } else if (v.is_string()) {
      value = duration_value(v.get<std::string>());
    } else {
      value.error = fmt::format(
          "expected a duration in seconds (1.5) or a string with a unit (\"250ms\"), got {}",
          show(v));
    }
    if (!value.error.empty()) fail(file, fmt::format("[{}]: {}", i, value.error));
    d.values.push_back(value.seconds);
  }
  return d;
}

// --- Logs --------------------------------------------------------------------------------

// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// A timestamp at the start of `s` (after an optional '['): "2024-05-01T10:00:01.234Z",
// "2024-05-01 10:00:01,234", with an optional offset; seconds since 1970.
std::optional<double> timestamp(std::string_view s) {
  if (!s.empty() && s[0] == '[') s.remove_prefix(1);
  const auto digits = [&](std::size_t at, std::size_t n) -> std::optional<unsigned> {
    if (at + n > s.size()) return std::nullopt;
    unsigned v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    return v;
  };
  const auto y = digits(0, 4), mo = digits(5, 2), da = digits(8, 2), h = digits(11, 2),
             mi = digits(14, 2), se = digits(17, 2);
  if (!y || !mo || !da || !h || !mi || !se || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' || *mo < 1 || *mo > 12 ||
      *da < 1 || *da > 31 || *h > 23 || *mi > 59 || *se > 60) {
    return std::nullopt;
  }
  double t =
      static_cast<double>(days_from_civil(*y, *mo, *da)) * 86400 + *h * 3600.0 + *mi * 60.0 + *se;
  std::size_t i = 19;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    double scale = 0.1;
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      t += (s[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const auto oh = digits(i + 1, 2);
    const std::size_t m_at = i + 3 < s.size() && s[i + 3] == ':' ? i + 4 : i + 3;
    const auto om = digits(m_at, 2);
    if (oh && om) t -= (s[i] == '+' ? 1 : -1) * (*oh * 3600.0 + *om * 60.0);
  }
  return t;
}

enum class LogKind { kNone, kSidekiq, kCelery };

// The job duration a log line states, if it states one: its text and its timestamp.
struct LogDuration {
  LogKind kind = LogKind::kNone;
  std::string_view value;  // "12.345"
  std::string owned;       // the value, when it comes from JSON
  std::optional<double> at;
};

// Sidekiq 6 and 7: "2024-05-01T10:00:01.234Z pid=7 tid=2ox class=ImportJob jid=ab
// elapsed=12.345 INFO: done" (and "fail"); Sidekiq 5 and before: "... INFO: done: 12.345 sec";
// Sidekiq's JSON formatter: {"ts":"...","lvl":"INFO","msg":"done","ctx":{"elapsed":"12.345"}}.
// Celery: "[2024-05-01 10:00:01,234: INFO/ForkPoolWorker-1] Task app.tasks.x[uuid] succeeded
// in 0.0123s: None".
LogDuration log_duration(std::string_view l) {
  LogDuration out;
  l = trim(l);
  if (!l.empty() && l[0] == '{' && l.find("\"msg\"") != std::string_view::npos) {
    ParsedJson p = try_parse_json(l);
    if (!p.value || !p.value->is_object()) return out;
    const json& v = *p.value;
    const json* msg = v.contains("msg") ? &v["msg"] : nullptr;
    if (msg == nullptr || !msg->is_string() || (*msg != "done" && *msg != "fail")) return out;
    const json* ctx = v.contains("ctx") ? &v["ctx"] : nullptr;
    if (ctx == nullptr || !ctx->is_object() || !ctx->contains("elapsed")) return out;
    const json& e = (*ctx)["elapsed"];
    out.kind = LogKind::kSidekiq;
    out.owned = e.is_string() ? e.get<std::string>() : e.dump();
    if (v.contains("ts") && v["ts"].is_string()) {
      out.at = timestamp(v["ts"].get_ref<const std::string&>());
    }
    return out;
  }
  const std::size_t celery = l.find("] succeeded in ");
  if (celery != std::string_view::npos && l.find("Task ") < celery) {
    std::string_view v = l.substr(celery + 15);
    v = v.substr(0, v.find_first_of(": \t"));
    if (ends_with(v, "s")) v.remove_suffix(1);
    out.kind = LogKind::kCelery;
    out.value = v;
    out.at = timestamp(l);
    return out;
  }
  for (const char* done : {"INFO: done", "INFO: fail"}) {
    const std::size_t at = l.find(done);
    if (at == std::string_view::npos) continue;
    const std::string_view after = l.substr(at + 10);
    if (starts_with(after, ": ")) {  // Sidekiq 5: "done: 12.345 sec"
      std::string_view v = after.substr(2);
      out.value = v.substr(0, v.find(' '));
    } else {
      const std::size_t e = l.rfind("elapsed=", at);
      if (e == std::string_view::npos) continue;
      std::string_view v = l.substr(e + 8, at - e - 8);
      out.value = trim(v.substr(0, v.find(' ')));
    }
    out.kind = LogKind::kSidekiq;
    out.at = timestamp(l);
    return out;
  }
  return out;
}

DurationData read_log(const std::string& file, const std::vector<Line>& lines, LogKind kind) {
  DurationData d;
  d.file = file;
  d.format = kind == LogKind::kSidekiq ? "Sidekiq log" : "Celery log";
  d.source = kind == LogKind::kSidekiq ? "its `done` and `fail` lines' elapsed time"
                                       : "its `Task ... succeeded in` lines";
  std::optional<double> first, last;
  for (const Line& line : lines) {
    const LogDuration ld = log_duration(line.text);
    if (ld.kind != kind) continue;
    const std::string_view text = ld.owned.empty() ? ld.value : std::string_view(ld.owned);
    const Value v = duration_value(text);
    if (!v.error.empty()) {
      fail_at(file, line.number,
              fmt::format("a {} line's job duration: {}",
                          kind == LogKind::kSidekiq ? "Sidekiq `done`" : "Celery `succeeded`",
                          v.error));
    }
    d.values.push_back(v.seconds);
    if (ld.at) {
      first = first ? std::min(*first, *ld.at) : *ld.at;
      last = last ? std::max(*last, *ld.at) : *ld.at;
      ++d.timed;
    }
  }
  if (first && *last > *first && d.timed >= 2) d.span_s = *last - *first;
  return d;
}

// A line a log would hold: one that starts with a timestamp, or a JSON object.
bool log_like(std::string_view l) {
  l = trim(l);
  return timestamp(l).has_value() || (!l.empty() && l[0] == '{');
}

}  // namespace durations_io
}  // namespace

DurationData read_durations(const std::string& file, const std::string& text,
                            const DurationReadOptions& options) {
  using namespace durations_io;
  const std::string_view all = trim(text);
  if (all.empty()) {
    fail(file,
         "empty: expected job durations (a Prometheus histogram, a CSV or JSON list, a Sidekiq "
         "or Celery log)");
  }
  const std::size_t dot = file.rfind('.');
  const std::string ext = dot == std::string::npos || file.find('/', dot) != std::string::npos
                              ? ""
                              : lower(file.substr(dot));
  const std::vector<Line> lines = lines_of(text);

  bool prometheus = ext == ".prom";
  std::size_t sidekiq = 0, celery = 0, log_lines = 0, content_lines = 0;
  for (const Line& line : lines) {
    const std::string_view l = trim(line.text);
    if (l.empty()) continue;
    ++content_lines;
    if (starts_with(l, "# TYPE ") || starts_with(l, "# HELP ")) prometheus = true;
    const std::size_t brace = l.find('{');
    if (brace != std::string_view::npos && ends_with(l.substr(0, brace), "_bucket")) {
      prometheus = true;
    }
    const LogDuration ld = log_duration(l);
    sidekiq += ld.kind == LogKind::kSidekiq;
    celery += ld.kind == LogKind::kCelery;
    log_lines += log_like(l);
  }
  // Celery's log lines start with '[' too, a timestamp after it.
  const bool json_list =
      (all[0] == '[' && !timestamp(all)) || (ext == ".json" && sidekiq + celery == 0);
  const bool histogram = prometheus && !json_list && sidekiq + celery == 0;
  if (!histogram && (!options.metric.empty() || !options.match.empty())) {
    fail(file, fmt::format("{} is for a Prometheus histogram, and this file is not one",
                           options.metric.empty() ? "--match" : "--metric"));
  }
  if (histogram) return read_prometheus(file, text, options);
  if (json_list) return read_json_list(file, text);
  if (sidekiq + celery > 0) {
    return read_log(file, lines, sidekiq >= celery ? LogKind::kSidekiq : LogKind::kCelery);
  }
  if (ext == ".log" || log_lines * 2 > content_lines) {
    fail(file,
         "a log with no job durations: expected Sidekiq `done` lines (`elapsed=1.234 INFO: "
         "done`, `INFO: done: 1.234 sec`, or JSON with \"msg\":\"done\" and ctx.elapsed) or "
         "Celery `Task NAME[ID] succeeded in 1.234s` lines");
  }
  return read_csv(file, text);
}

// --- Into the scenario -------------------------------------------------------------------

namespace {
namespace durations_io {

// A grace the report compares the durations with: its name and value.
struct Grace {
  std::string name;  // "the worker's grace"
  Duration value = 0;
};

std::vector<Grace> graces_of(const json& scenario) {
  std::vector<Grace> out;
  const json* worker = scenario.contains("worker") ? &scenario["worker"] : nullptr;
  std::optional<Duration> g;
  if (worker != nullptr && worker->contains("grace_period") &&
      (*worker)["grace_period"].is_string()) {
    g = parse_grace((*worker)["grace_period"].get<std::string>());
  } else if (worker != nullptr && worker->contains("profile") && (*worker)["profile"].is_string()) {
    if (const Profile* p = find_profile((*worker)["profile"].get<std::string>())) {
      g = p->worker.grace_period;
    }
  }
  if (g) out.push_back({"the worker's grace", *g});
  const json* platform = scenario.contains("platform") ? &scenario["platform"] : nullptr;
  if (platform != nullptr && platform->contains("termination_grace_period") &&
      (*platform)["termination_grace_period"].is_string()) {
    if (const auto t = parse_grace((*platform)["termination_grace_period"].get<std::string>())) {
      out.push_back({"the pod's termination grace", *t});
    }
  }
  return out;
}

// The share of jobs above each grace, exact for a list.
std::string shares_of_values(const std::vector<Duration>& sorted,
                             const std::vector<Grace>& graces) {
  std::vector<std::string> parts;
  for (const Grace& g : graces) {
    if (g.value == kNever) {
      parts.push_back(fmt::format("none above {} (forever)", g.name));
      continue;
    }
    const auto above = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), g.value);
    parts.push_back(
        fmt::format("{} above {} of {}",
                    percent(static_cast<double>(above) / static_cast<double>(sorted.size())),
                    g.name, format_duration(g.value)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A histogram bucket's bounds, as the report names them: "(10s, 30s]", "above 6h".
std::string bounds(const std::vector<DurationBucket>& b, std::size_t i) {
  const double lo = i == 0 ? 0 : b[i - 1].le;
  if (std::isinf(b[i].le)) return fmt::format("above {} (the +Inf bucket)", duration_text(lo));
  return fmt::format("in ({}, {}]", duration_text(lo), duration_text(b[i].le));
}

// The share of jobs above each grace: exact when the grace is a bucket's le, else the
// bounds the bucket holding it gives.
std::string shares_of_histogram(const std::vector<DurationBucket>& b,
                                const std::vector<Grace>& graces) {
  double total = 0;
  for (const DurationBucket& x : b) total += x.count;
  std::vector<std::string> parts;
  for (const Grace& g : graces) {
    if (g.value == kNever) {
      parts.push_back(fmt::format("none above {} (forever)", g.name));
      continue;
    }
    double below = 0;  // jobs in the buckets wholly at or below the grace
    std::size_t i = 0;
    for (; i < b.size() && !std::isinf(b[i].le) && from_seconds(b[i].le) <= g.value; ++i) {
      below += b[i].count;
    }
    const std::string name = fmt::format("{} of {}", g.name, format_duration(g.value));
    const bool on_le = i > 0 && from_seconds(b[i - 1].le) == g.value;
    if (i == b.size() || on_le || b[i].count == 0) {
      parts.push_back(fmt::format("{} above {}", percent((total - below) / total), name));
    } else {
      parts.push_back(fmt::format("between {} and {} above {} (inside the bucket {})",
                                  percent((total - below - b[i].count) / total),
                                  percent((total - below) / total), name,
                                  bounds(b, i).substr(bounds(b, i).find(' ') + 1)));
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

double round4(double v) { return parse_number<double>(fmt::format("{:.4g}", v)).value_or(v); }

json weight(double w) {
  if (w < 1e15 && w == std::floor(w)) return static_cast<std::int64_t>(w);
  return w;
}

}  // namespace durations_io
}  // namespace

void apply_durations(K8sImport& import, const DurationData* data, const ArrivalOptions& arrival) {
  using namespace durations_io;
  if (arrival.rate && arrival.window) {
    throw InputError(
        "--rate and --window: give one (--rate is the arrival rate itself; --window the time "
        "a histogram's _count covers)");
  }
  if (arrival.rate && !(std::isfinite(*arrival.rate) && *arrival.rate > 0)) {
    throw InputError(
        fmt::format("--rate {}: expected a number of jobs per second > 0", number(*arrival.rate)));
  }
  if (arrival.window) {
    const std::string w = format_duration(*arrival.window);
    if (*arrival.window <= 0) throw InputError("--window 0s: expected a duration > 0");
    if (data == nullptr) {
      throw InputError(fmt::format(
          "--window {}: expected --durations with a Prometheus histogram, whose _count it "
          "divides",
          w));
    }
    if (data->buckets.empty()) {
      throw InputError(fmt::format(
          "--window {}: {} is a {}, without a histogram's _count to divide: give --rate N "
          "(jobs per second) instead",
          w, data->file, data->format));
    }
  }
  const std::vector<Grace> graces = graces_of(import.scenario);
  double mean = 0;
  if (data != nullptr) {
    json distribution{{"kind", "empirical"}};
    std::string note;
    if (!data->buckets.empty()) {
      const std::vector<DurationBucket>& b = data->buckets;
      json histogram = json::array();
      double total = 0, weighted = 0, finite_sum = 0, last_le = 0;
      std::size_t lowest = b.size(), highest = 0;
      for (std::size_t i = 0; i < b.size(); ++i) {
        if (!std::isinf(b[i].le)) last_le = b[i].le;
        if (b[i].count == 0) continue;
        lowest = std::min(lowest, i);
        highest = i;
        total += b[i].count;
      }
      std::string assumed;
      for (std::size_t i = 0; i < b.size(); ++i) {
        if (b[i].count == 0) continue;
        double le = b[i].le;
        const double lo = i == 0 ? 0 : b[i - 1].le;
        if (std::isinf(le)) {
          // The +Inf bucket's jobs took more than the last le, how much more the histogram
          // does not say. Its _sum bounds their mean from below (every other job at most
          // its le): drawn uniformly up to twice the last le, or further when that mean
          // needs it.
          const double least_mean = data->sum ? (*data->sum - finite_sum) / b[i].count : 0;
          le = std::min(std::max(2 * last_le, 2 * least_mean - last_le), kMaxSeconds);
          if (from_seconds(le) <= from_seconds(last_le)) le = std::min(last_le + 1, kMaxSeconds);
          assumed = fmt::format(
              "; the +Inf bucket's jobs ({}) are drawn from ({}, {}]: an assumption, as the "
              "histogram does not say how long they took ({})",
              number(b[i].count), duration_text(last_le), duration_text(le),
              2 * least_mean - last_le > 2 * last_le
                  ? "beyond twice the last le, so that their mean is at least what _sum leaves "
                    "for them"
                  : "up to twice the last le");
        } else {
          finite_sum += b[i].count * le;
        }
        weighted += b[i].count * (lo + le) / 2;
        const Duration d = from_seconds(le);
        if (!histogram.empty() && histogram.back()["le"] == format_duration(d)) {
          histogram.back()["weight"] =
              weight(histogram.back()["weight"].get<double>() + b[i].count);
        } else {
          histogram.push_back({{"le", format_duration(d)}, {"weight", weight(b[i].count)}});
        }
      }
      distribution["histogram"] = histogram;
      mean = data->sum && data->count && *data->count > 0 && *data->sum >= 0
                 ? *data->sum / *data->count
                 : weighted / total;
      note =
          fmt::format("{}: {} jobs, the shortest {}, the longest {}; {}; empty buckets dropped{}",
                      data->format, number(total), bounds(b, lowest), bounds(b, highest),
                      shares_of_histogram(b, graces), assumed);
    } else {
      std::vector<Duration> sorted;
      double sum = 0;
      for (const double v : data->values) {
        sorted.push_back(from_seconds(v));
        sum += v;
      }
      std::sort(sorted.begin(), sorted.end());
      mean = sum / static_cast<double>(sorted.size());
      std::string kept;
      if (sorted.size() <= kMaxValues) {
        json values = json::array();
        for (const double v : data->values) values.push_back(duration_text(v));
        distribution["values"] = values;
      } else {
        // Each bucket's le is the value at a quantile, k/kValueBuckets of the way up.
        json histogram = json::array();
        std::size_t taken = 0;
        for (std::size_t k = 1; k <= kValueBuckets; ++k) {
          const std::size_t rank = (k * sorted.size() + kValueBuckets - 1) / kValueBuckets;
          const Duration le = sorted[rank - 1];
          const std::size_t upto = static_cast<std::size_t>(
              std::upper_bound(sorted.begin(), sorted.end(), le) - sorted.begin());
          if (upto > taken) {
            histogram.push_back({{"le", format_duration(le)}, {"weight", upto - taken}});
            taken = upto;
          }
        }
        distribution["histogram"] = histogram;
        kept = fmt::format(
            "; more than {} values: a histogram of {} buckets at their quantiles, each a "
            "uniform draw within it",
            kMaxValues, histogram.size());
      }
      note = fmt::format("{}: {} jobs from {} to {}; {}{}", data->format, sorted.size(),
                         format_duration(sorted.front()), format_duration(sorted.back()),
                         shares_of_values(sorted, graces), kept);
    }
    set_field(import, "workload.job_duration", distribution,
              data->source.empty() ? data->file : fmt::format("{}: {}", data->file, data->source),
              note);
  }

  if (arrival.rate) {
    set_field(import, "workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", *arrival.rate}},
              "", fmt::format("--rate {}: Poisson arrivals at that rate", number(*arrival.rate)));
  } else if (arrival.window) {
    const double rate = round4(*data->count / to_seconds(*arrival.window));
    if (!(rate > 0)) {
      throw InputError(fmt::format("--window {}: {}: {} is 0: no arrivals to take a rate from",
                                   format_duration(*arrival.window), data->file,
                                   data->count_source));
    }
    set_field(import, "workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", rate}},
              fmt::format("{}: {}", data->file, data->count_source),
              fmt::format("{} jobs over --window {}, Poisson; assumes the counter covers just "
                          "that window (the exporter started then, and did not restart)",
                          number(*data->count), format_duration(*arrival.window)));
  } else if (data != nullptr && data->span_s) {
    const double rate = round4(static_cast<double>(data->timed - 1) / *data->span_s);
    set_field(import, "workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", rate}},
              data->file,
              fmt::format("{} jobs ended in the {} between the log's first and last timestamps, "
                          "Poisson: in a steady state jobs start as fast as they end",
                          data->timed, format_seconds(*data->span_s)));
  } else if (data != nullptr) {
    const std::int64_t slots = import.default_slots;
    const double busy = std::max(mean, 0.001);
    const double rate =
        std::max(0.1, std::round(static_cast<double>(slots) / busy * 0.5 * 10) / 10);
    set_field(import, "workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", rate}}, "",
              fmt::format("drainsim's default: half the {} slots{} busy on average with these "
                          "durations (mean {}); no --rate, --window or timestamps to say more",
                          slots, import.default_slots_what, format_seconds(mean)));
  }
}

}  // namespace drainsim
