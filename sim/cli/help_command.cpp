// `drainsim help [COMMAND]` (git's and kubectl's: the top-level help, or one command's), and
// the message for a command that does not exist.
#include <algorithm>
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

}  // namespace

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
