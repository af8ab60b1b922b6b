#include "io/k8s_command.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/parse.h"

namespace drainsim {

namespace {

// The value of the flag at w[i] when it is `short_name` or `long_name`: "-c 10" (i moves
// past the value), "-c10", "--concurrency 10", "--concurrency=10". `short_name` may be
// empty (a flag with no short form).
std::optional<std::string> flag_value(const std::vector<std::string>& w, std::size_t& i,
                                      std::string_view short_name, std::string_view long_name) {
  const std::string& a = w[i];
  if ((a == long_name || (!short_name.empty() && a == short_name)) && i + 1 < w.size()) {
    return w[++i];
  }
  if (a.size() > long_name.size() && a.compare(0, long_name.size(), long_name) == 0 &&
      a[long_name.size()] == '=') {
    return a.substr(long_name.size() + 1);
  }
  if (!short_name.empty() && a.size() > 2 && a.compare(0, 2, short_name) == 0 && a[1] != '-') {
    return a.substr(2);
  }
  return std::nullopt;
}

// An integer flag's value within [min, max]. Throws CommandError.
std::int64_t flag_int(const std::string& v, std::string_view flag, std::int64_t min,
                      std::int64_t max) {
  const std::optional<std::int64_t> n = parse_number<std::int64_t>(v);
  if (!n || *n < min || *n > max) {
    throw CommandError(fmt::format("{} {}: expected an integer from {} to {}", flag, v, min, max));
  }
  return *n;
}

// "a,b,,c" -> a, b, c: a comma-separated list of queues, empty names dropped.
std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return out;
}

}  // namespace

std::string base_name(const std::string& word) {
  const std::size_t slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
}

std::vector<std::string> commands_of(const std::string& script) {
  std::vector<std::string> out(1);
  char quote = 0;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (c == '\\' && quote != '\'' && i + 1 < script.size()) {
      // A backslash-newline joins two lines (`exec \` then the program on the next one);
      // any other escaped character is kept for shell_words, and splits nothing.
      if (script[i + 1] != '\n') out.back() += script.substr(i, 2);
      ++i;
    } else if (quote != 0) {
      if (c == quote) quote = 0;
      out.back() += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out.back() += c;
    } else if (c == ';' || c == '\n' || c == '&' || c == '|') {
      if (i + 1 < script.size() && (script[i + 1] == '&' || script[i + 1] == '|')) ++i;
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  std::erase_if(out, [](const std::string& s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  });
  return out;
}

bool is_quiet(const std::vector<std::string>& w) {
  const std::string program = base_name(w[0]);
  if (program == "sidekiqctl") return w.size() >= 2 && w[1] == "quiet";
  if (program != "kill" || w.size() < 3) return false;
  const auto tstp = [](const std::string& s) { return s == "TSTP" || s == "SIGTSTP" || s == "20"; };
  return (w[1].size() > 1 && w[1][0] == '-' && tstp(w[1].substr(1))) ||
         (w[1] == "-s" && w.size() >= 4 && tstp(w[2]));
}

bool is_shell(const std::string& word) {
  const std::string b = base_name(word);
  return b == "sh" || b == "bash" || b == "ash" || b == "dash" || b == "zsh";
}

Launch launch_of(const std::vector<std::string>& argv) {
  Launch l;
  std::vector<std::string> words = argv;
  if (!words.empty() && (base_name(words[0]) == "tini" || base_name(words[0]) == "dumb-init")) {
    l.init = true;
    words.erase(words.begin());
    while (!words.empty() && words[0].size() > 1 && words[0][0] == '-') {
      const bool end = words[0] == "--";
      words.erase(words.begin());
      if (end) break;
    }
  }
  if (words.size() >= 3 && is_shell(words[0]) && words[1] == "-c") {
    const std::vector<std::string> commands = commands_of(words[2]);
    if (commands.empty()) throw CommandError("expected a command after -c, got an empty script");
    bool ok = true;
    std::vector<std::string> last = shell_words(commands.back(), &ok);
    if (!ok) {
      throw CommandError(
          fmt::format("expected a shell script, got an unclosed quote in {}", commands.back()));
    }
    if (!last.empty() && last[0] == "exec") {
      last.erase(last.begin());
      l.shell_note = fmt::format("{} -c ending in `exec`: the worker replaces the shell as PID 1",
                                 base_name(words[0]));
    } else {
      l.pid1_shell = !l.init;
      l.shell_note = commands.size() > 1
                         ? fmt::format(
                               "{} -c runs {} commands and the worker last, without `exec`: the "
                               "shell stays PID 1 and does not forward TERM",
                               base_name(words[0]), commands.size())
                         : fmt::format(
                               "{} -c without `exec`: the shell is PID 1 and does not forward TERM "
                               "(bash and dash 0.5.11+ exec a lone simple command themselves: "
                               "write `exec` to say so)",
                               base_name(words[0]));
      if (l.init) l.shell_note += "; the init before it forwards signals to the shell only";
    }
    words = last;
  }
  if (!words.empty() && base_name(words[0]) == "bundle" && words.size() > 1 && words[1] == "exec") {
    words.erase(words.begin(), words.begin() + 2);
  }
  if (words.size() > 2 && (words[0] == "python" || words[0] == "python3") && words[1] == "-m") {
    words.erase(words.begin(), words.begin() + 2);
  }
  l.words = words;
  return l;
}

std::vector<CommandSetting> sidekiq_settings(const std::vector<std::string>& w) {
  std::vector<CommandSetting> out;
  std::vector<std::string> queues;
  std::string config_file;
  bool concurrency = false, timeout = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (const auto c = flag_value(w, i, "-c", "--concurrency")) {
      out.push_back(
          {"worker.concurrency", flag_int(*c, "-c", 1, 100000), fmt::format("sidekiq -c {}", *c)});
      concurrency = true;
    } else if (const auto t = flag_value(w, i, "-t", "--timeout")) {
      out.push_back({"worker.grace_period", fmt::format("{}s", flag_int(*t, "-t", 1, 1000000)),
                     fmt::format("sidekiq -t {}: its shutdown timeout, whole seconds", *t)});
      timeout = true;
    } else if (const auto q = flag_value(w, i, "-q", "--queue")) {
      const std::string name = q->substr(0, q->find(','));
      if (std::find(queues.begin(), queues.end(), name) == queues.end()) queues.push_back(name);
    } else if (const auto file = flag_value(w, i, "-C", "--config")) {
      config_file = *file;
    }
  }
  const std::string config = config_file.empty()
                                 ? ""
                                 : fmt::format(
                                       " (its -C {} is not read: give -c and -t on the "
                                       "command line to have them here)",
                                       config_file);
  if (!concurrency) {
    out.push_back(
        {"worker.concurrency", 5, "Sidekiq's default, as the command gives no -c" + config, false});
  }
  if (!timeout) {
    out.push_back({"worker.grace_period", "25s",
                   "Sidekiq's default, as the command gives no -t" + config, false});
  }
  if (!queues.empty()) {
    out.push_back({"worker.queues", queues,
                   "sidekiq -q in the order given; their weights are not modelled, the first is "
                   "fetched first"});
    out.push_back({"workload.queue", queues.front(), "the jobs go to the worker's first queue"});
  }
  return out;
}

bool is_airflow_celery_worker(const std::vector<std::string>& w) {
  return !w.empty() && base_name(w[0]) == "airflow" &&
         ((w.size() >= 3 && w[1] == "celery" && w[2] == "worker") ||
          (w.size() >= 2 && w[1] == "worker"));
}

std::vector<CommandSetting> airflow_celery_settings(const std::vector<std::string>& w) {
  std::vector<CommandSetting> out;
  bool concurrency = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (const auto c = flag_value(w, i, "-c", "--concurrency")) {
      out.push_back({"worker.concurrency", flag_int(*c, "--concurrency", 1, 100000),
                     fmt::format("airflow celery worker --concurrency {}", *c)});
      concurrency = true;
    } else if (const auto q = flag_value(w, i, "-q", "--queues")) {
      const std::vector<std::string> queues = comma_list(*q);
      if (!queues.empty()) {
        out.push_back({"worker.queues", queues, fmt::format("airflow celery worker -q {}", *q)});
        out.push_back(
            {"workload.queue", queues.front(), "the jobs go to the worker's first queue"});
      }
    }
  }
  if (!concurrency) {
    out.push_back({"worker.concurrency", 16,
                   "Airflow's default [celery] worker_concurrency, as the command gives no "
                   "--concurrency",
                   false});
  }
  return out;
}

std::vector<CommandSetting> celery_settings(const std::vector<std::string>& w) {
  std::vector<CommandSetting> out;
  bool concurrency = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (const auto c = flag_value(w, i, "-c", "--concurrency")) {
      out.push_back({"worker.concurrency", flag_int(*c, "--concurrency", 1, 100000),
                     fmt::format("celery worker --concurrency {}", *c)});
      concurrency = true;
    } else if (const auto m = flag_value(w, i, "", "--prefetch-multiplier")) {
      out.push_back({"worker.options.prefetch_multiplier",
                     flag_int(*m, "--prefetch-multiplier", 0, 100000),
                     fmt::format("celery worker --prefetch-multiplier {}", *m)});
    } else if (const auto q = flag_value(w, i, "-Q", "--queues")) {
      const std::vector<std::string> queues = comma_list(*q);
      if (!queues.empty()) {
        out.push_back({"worker.queues", queues, fmt::format("celery worker -Q {}", *q)});
        out.push_back(
            {"workload.queue", queues.front(), "the jobs go to the worker's first queue"});
      }
    }
  }
  if (!concurrency) {
    out.push_back({"worker.concurrency", 10,
                   "drainsim's default: the command gives no --concurrency, and Celery's is the "
                   "node's CPU count, which the manifest does not say",
                   false});
  }
  return out;
}

std::vector<std::string> shell_words(const std::string& line, bool* ok) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < line.size() &&
                 std::string_view("\"\\$`").find(line[i + 1]) != std::string_view::npos) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(std::exchange(word, {}));
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  if (ok != nullptr) *ok = quote == 0;
  return out;
}

}  // namespace drainsim
