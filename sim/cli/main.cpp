// drainsim: what will your workers' shutdown settings cost? The command line: each
// subcommand lives in its own file under sim/cli/ (run, real, fidelity, compare, sweep and
// merge, tune, import, the catalog: validate, profiles, conformance, export; and help); main()
// parses and dispatches.
// Exit codes: 0 ok, 2 bad input (file, JSON path and what was expected on stderr; an
// unknown command or option, an invalid value), 3 audit failure (which jobs, and why),
// 4 a real run whose own processes failed (the cause first; partial results), 130
// interrupted (Ctrl+C); `conformance` and `tune`: 1 when a required check fails or no
// setting meets the targets.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/common.h"

int main(int argc, char** argv) {
  using namespace drainsim::cli;
  CLI::App app{"drainsim: what will your workers' shutdown settings cost?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("drainsim ") + DRAINSIM_VERSION);
  use_wrapped_help(app);
  std::vector<Command> commands;
  for (auto add : {add_run_commands, add_real_commands, add_fidelity_commands, add_compare_commands,
                   add_sweep_commands, add_tune_commands, add_import_commands, add_catalog_commands,
                   add_help_command}) {
    add(app, commands);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The top level takes only --help and --version, so its first other word names the
    // command, or is an option given before it.
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word == "-h" || word == "--help" || word == "--version") continue;
      if (!word.empty() && word[0] == '-') {
        fmt::print(stderr,
                   "error: unknown option \"{}\": a command's options go after it (drainsim "
                   "help COMMAND lists them)\n",
                   word);
        return kBadInput;
      }
      if (!find_command(app, word)) return unknown_command(app, word);
      break;
    }
    return parse_failed(app, e, argc, argv);
  }
  for (const Command& c : commands) {
    if (*c.app) return c.run();
  }
  return kBadInput;
}
