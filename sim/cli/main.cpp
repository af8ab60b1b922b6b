// drainsim: what will your workers' shutdown settings cost? The command line: each
// subcommand lives in its own file under sim/cli/ (run and fidelity, compare, sweep and
// merge, tune, and the catalog: validate, profiles, conformance, export); main() parses
// and dispatches.
// Exit codes: 0 ok, 2 bad input (file, JSON path and what was expected on stderr),
// 3 audit failure (which jobs, and why), 130 interrupted (Ctrl+C); `conformance` and
// `tune`: 1 when a required check fails or no setting meets the targets.
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/common.h"

int main(int argc, char** argv) {
  using namespace drainsim::cli;
  CLI::App app{"drainsim: what will your workers' shutdown settings cost?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", DRAINSIM_VERSION);
  const std::vector<Command> commands = {
      add_run_command(app),      add_fidelity_command(app), add_compare_command(app),
      add_sweep_command(app),    add_merge_command(app),    add_tune_command(app),
      add_validate_command(app), add_profiles_command(app), add_conformance_command(app),
      add_export_command(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }
  for (const Command& c : commands) {
    if (*c.app) return c.run();
  }
  return kBadInput;
}
