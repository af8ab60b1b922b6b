// `drainsim help [COMMAND]` (git's and kubectl's: the top-level help, or one command's), and
// the message for a command that does not exist.
#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/common.h"

namespace drainsim::cli {
namespace {

std::vector<const CLI::App*> all_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// Edit distance counting a swap of two neighbours as one edit ("rnu" is 1 from "run"):
// the optimal string alignment distance.
std::size_t typo_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// Help wrapped at kHelpWidth columns: option and command descriptions in their column, the
// command's own description from the margin.
constexpr std::size_t kHelpWidth = 100;

// `text` with its words moved to new lines so that no line passes `width` (a word longer
// than that keeps its own line); the line breaks it has are kept.
std::string wrap(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t line = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == '\n') {
      out += '\n';
      line = 0;
      ++at;
      continue;
    }
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(text.find_first_of(" \n", at), text.size());
    const std::string_view word = text.substr(at, end - at);
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    at = end;
  }
  return out;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap(opt->get_description(), kHelpWidth - get_column_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap(sub->get_description(), kHelpWidth - get_column_width()),
                             get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap(CLI::Formatter::make_description(app), kHelpWidth);
  }
};

// The long option `word` names (up to its "="), when `cmd` has no such option.
bool unknown_option(const CLI::App& cmd, const std::string& word) {
  if (word.rfind("--", 0) != 0 || word == "--") return false;
  const std::string name = word.substr(2, word.find('=') - 2);
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& l : o->get_lnames()) {
      if (l == name) return false;
    }
  }
  return true;
}

}  // namespace

void use_wrapped_help(CLI::App& app) { app.formatter(std::make_shared<WrappingFormatter>()); }

int parse_failed(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const CLI::App* cmd = nullptr;
  int first = 1;
  for (; first < argc; ++first) {
    if (argv[first][0] != '-') {
      cmd = find_command(app, argv[first]);
      break;
    }
  }
  if (cmd == nullptr) {
    if (first == argc) {
      fmt::print(stderr, "error: no command given (drainsim help lists them)\n");
    } else {
      fmt::print(stderr, "error: {}\n", e.what());
    }
    return kBadInput;
  }
  std::string name = cmd->get_name();
  // A command of commands (import k8s): the options are its command's.
  if (first + 1 < argc && argv[first + 1][0] != '-') {
    const std::string word = argv[first + 1];
    const auto subs =
        cmd->get_subcommands([&](const CLI::App* sub) { return sub->get_name() == word; });
    if (!subs.empty()) {
      cmd = subs.front();
      name += " " + word;
      ++first;
    }
  }
  for (int i = first + 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (!unknown_option(*cmd, word)) continue;
    const std::string typed = word.substr(0, word.find('='));
    std::string best;
    std::size_t best_d = SIZE_MAX;
    for (const CLI::Option* o : cmd->get_options()) {
      for (const std::string& l : o->get_lnames()) {
        const std::size_t d = typo_distance(typed.substr(2), l);
        if (d < best_d) best = "--" + l, best_d = d;
      }
    }
    if (!best.empty() && best_d <= std::max<std::size_t>(2, best.size() / 3)) {
      fmt::print(stderr, "error: {}: unknown option \"{}\" (did you mean \"{}\"?)\n", name, typed,
                 best);
    } else {
      fmt::print(stderr, "error: {}: unknown option \"{}\" (drainsim help {} lists them)\n", name,
                 typed, name);
    }
    return kBadInput;
  }
  // An option's bad value names the option; anything else points at the command's help.
  const std::string what = e.what();
  if (what.rfind("--", 0) == 0) {
    fmt::print(stderr, "error: {}: {}\n", name, what);
  } else {
    fmt::print(stderr, "error: {}: {} (drainsim help {} lists the options)\n", name, what, name);
  }
  return kBadInput;
}

const CLI::App* find_command(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : all_commands(app)) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

int unknown_command(const CLI::App& app, const std::string& typed) {
  // A command is a candidate when it is a few typos away (the scenario reader's rule for
  // field names, a swap of neighbours counting as one) or when the word begins it
  // ("conf"); the nearest wins, then one the word begins ("tun": tune, not run), then the
  // first listed.
  std::string best, names;
  std::pair<std::size_t, bool> best_key{SIZE_MAX, true};
  for (const CLI::App* sub : all_commands(app)) {
    const std::string& name = sub->get_name();
    names += (names.empty() ? "" : ", ") + name;
    const std::size_t d = typo_distance(typed, name);
    const bool begins = !typed.empty() && name.rfind(typed, 0) == 0;
    if (d > std::max<std::size_t>(1, name.size() / 3) && !begins) continue;
    const std::pair<std::size_t, bool> key{d, !begins};
    if (key < best_key) best = name, best_key = key;
  }
  if (!best.empty()) {
    fmt::print(stderr, "error: unknown command \"{}\" (did you mean \"{}\"?)\n", typed, best);
  } else {
    fmt::print(stderr, "error: unknown command \"{}\", expected one of {}\n", typed, names);
  }
  return kBadInput;
}

void add_help_command(CLI::App& app, std::vector<Command>& out) {
  auto command = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("help", "Show the help of drainsim, or of one command: help COMMAND");
  cmd->add_option("command", *command, "The command");
  out.push_back({cmd, [&app, command] {
                   if (command->empty()) {
                     // app.help() would show the selected subcommand's: this one.
                     fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(),
                                                                     CLI::AppFormatMode::Normal));
                     return 0;
                   }
                   const CLI::App* sub = find_command(app, *command);
                   if (!sub) return unknown_command(app, *command);
                   fmt::print("{}", sub->help(app.get_name()));
                   return 0;
                 }});
}

}  // namespace drainsim::cli
