// How a worker container starts its job system, read from its command line (drainsim
// import k8s, docs/import.md): the words of the program with what wraps it taken off (an
// init, a shell's -c script, bundle exec, python -m), and the scenario settings each job
// system's flags give. Pure functions of the words. A command drainsim cannot read is a
// CommandError saying what was expected; the caller adds the file and the YAML path.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace drainsim {

struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How the container starts its worker: the words of its job system's command, with what
// wraps it taken off.
struct Launch {
  std::vector<std::string> words;  // "sidekiq", "-c", "10", ...
  bool pid1_shell = false;         // a shell stays PID 1 and does not forward TERM
  bool init = false;               // tini or dumb-init is PID 1 and forwards signals
  std::string shell_note;          // how the shell was read
};

// The launch of a container whose command and args, joined, are `argv`. Throws
// CommandError for a shell's -c with an empty script or an unclosed quote.
Launch launch_of(const std::vector<std::string>& argv);

// One scenario field a command's flags set, or the job system's default for it.
struct CommandSetting {
  std::string path;  // in the scenario: "worker.concurrency"
  nlohmann::json value;
  std::string note;          // "sidekiq -c 25"; for a default, why it is that
  bool from_command = true;  // false: the command does not say, the value is a default
};

// Sidekiq's flags (its cli.rb): -c/--concurrency, -t/--timeout (whole seconds), -q/--queue
// NAME[,WEIGHT] (weights not modelled); a -C file is named in the defaults' notes, not
// read. `words[0]` is the program. Throws CommandError for a value out of bounds.
std::vector<CommandSetting> sidekiq_settings(const std::vector<std::string>& words);

// Celery's worker: -c/--concurrency, --prefetch-multiplier, -Q/--queues a,b. Throws
// CommandError for a value out of bounds.
std::vector<CommandSetting> celery_settings(const std::vector<std::string>& words);

// `airflow celery worker` (Airflow 2 and later; `airflow worker` in 1.10): Celery's worker
// under Airflow's command line.
bool is_airflow_celery_worker(const std::vector<std::string>& words);

// Airflow's celery worker: -c/--concurrency, -q/--queues a,b; without -c, Airflow's default
// [celery] worker_concurrency, 16 (a default: the environment may set it). Throws
// CommandError for a value out of bounds.
std::vector<CommandSetting> airflow_celery_settings(const std::vector<std::string>& words);

// Words of a shell command line as sh would split them: whitespace, single and double
// quotes, backslashes (no expansions); `ok`, when given, is false for an unclosed quote.
std::vector<std::string> shell_words(const std::string& line, bool* ok = nullptr);

// Simple commands of a shell script, split at ';', '&&', '||', '|', '&' and newlines
// outside quotes and escapes (a backslash-newline joins two lines). Rough, as a reader of a script
// must be: enough for a wrapper's line.
std::vector<std::string> commands_of(const std::string& script);

// The last part of a path: "/usr/bin/tini" -> "tini".
std::string base_name(const std::string& word);

// sh, bash, ash, dash, zsh, under any directory.
bool is_shell(const std::string& word);

// `kill -TSTP 1` (or -SIGTSTP, -20, -s TSTP) and `sidekiqctl quiet`: the worker told to
// stop fetching. REQUIRES: `words` is not empty.
bool is_quiet(const std::vector<std::string>& words);

}  // namespace drainsim
