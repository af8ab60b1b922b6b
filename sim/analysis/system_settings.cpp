// Each job system's own settings (analysis/system_settings.h); the sources behind each
// system's lines are in docs/tune.md, "The snippet".
#include "analysis/system_settings.h"

#include <variant>

#include <fmt/format.h>

#include "analysis/tune.h"  // pre_stop_time

namespace drainsim::snippet {

std::int64_t seconds_up(Duration d) { return (d + kSecond - 1) / kSecond; }

// A YAML flow sequence of strings: ["a", "b"].
std::string flow(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", \"" : "\"") + items[i] + "\"";
  }
  return out + "]";
}

namespace {

std::int64_t millis_up(Duration d) { return (d + kMillisecond - 1) / kMillisecond; }

// 25000 -> "25_000", as Elixir and JavaScript number literals may be written.
std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += '_';
    out += digits[i];
  }
  return out;
}

// A Go time.Duration expression: "25 * time.Second", "1500 * time.Millisecond".
std::string go_duration(Duration d) {
  if (d == 0) return "0";
  if (d % kSecond == 0) return fmt::format("{} * time.Second", d / kSecond);
  if (d % kMillisecond == 0) return fmt::format("{} * time.Millisecond", d / kMillisecond);
  return fmt::format("{} * time.Microsecond", d);
}

// Seconds as a Python float literal: "25.0", "25.5".
std::string python_seconds(Duration d) {
  std::string s = fmt::format("{:.6f}", to_seconds(d));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

bool flag(const Scenario& s, std::string_view name) {
  const auto it = s.worker.options.find(name);
  return it != s.worker.options.end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

Duration duration_option(const Scenario& s, std::string_view name, Duration fallback) {
  const auto it = s.worker.options.find(name);
  return it != s.worker.options.end() && std::holds_alternative<Duration>(it->second)
             ? std::get<Duration>(it->second)
             : fallback;
}

// For a system with no "forever": 1 s past the platform's grace, so that its SIGKILL comes
// first (and before any action the system takes shortly ahead of its own deadline).
Duration bounded(const Input& in) { return in.grace == kNever ? in.platform + kSecond : in.grace; }

// The line that says how a grace was turned into the system's value (`prefix` opens a
// comment in its language), or nothing when it was taken as it is.
std::string grace_note(const Input& in, std::string_view prefix, std::string_view system,
                       Duration unit, std::string_view unit_name) {
  if (in.grace == kNever) {
    return fmt::format(
        "{0} The grace is \"forever\", for which {1} has no value: this is the\n"
        "{0} platform's grace ({2}) plus 1s, so that its SIGKILL comes first.\n",
        prefix, system, format_duration(in.platform));
  }
  if (in.grace % unit != 0) {
    return fmt::format("{} {} rounded up: {} takes {}.\n", prefix, format_duration(in.grace),
                       system, unit_name);
  }
  return {};
}

const char* const kCommandNote =
    "command: your worker program, in exec form (it must be PID 1 to receive TERM)";

System ojs(const Input& in) {
  System w;
  w.name = "the OJS worker";
  w.settings =
      "# --- Open Job Spec: the worker's shutdown_grace_period (graceful-shutdown spec\n"
      "# §6.1), passed as OJS_SHUTDOWN_GRACE_PERIOD as in the spec's §8.1 pod spec (the\n"
      "# OJS website's page names it OJS_GRACE_PERIOD: use the name your worker reads)\n" +
      grace_note(in, "#", "the spec", 1, "");
  w.command = {"/app/ojs-worker"};
  w.command_note = "your worker in exec form, not through a shell (spec §4.3, the PID 1 problem)";
  w.env = {{"OJS_SHUTDOWN_GRACE_PERIOD", format_duration(bounded(in))}};
  w.quiet = "TSTP";
  return w;
}

System ojs_go_sdk(const Input& in) {
  System w;
  w.name = "the OJS Go SDK";
  w.settings = fmt::format(
      "# --- main.go: the OJS Go SDK reads no environment variable; its grace is the option\n"
      "# WithGracePeriod (options.go, default 25s). It handles no signal: TERM must cancel\n"
      "# the context Start runs under (spec §12.1)\n"
      "{}"
      "worker := ojs.NewWorker(url, ojs.WithGracePeriod({}))\n"
      "ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)\n"
      "defer cancel()\n"
      "if err := worker.Start(ctx); err != nil {{\n"
      "\tlog.Fatal(err)\n"
      "}}\n",
      grace_note(in, "//", "the SDK", 1, ""), go_duration(bounded(in)));
  w.command_note = kCommandNote;
  return w;
}

System ojs_js_sdk(const Input& in) {
  System w;
  w.name = "the OJS JS SDK";
  w.settings = fmt::format(
      "# --- worker.js: the OJS JS SDK (0.4) reads no environment variable; its grace is\n"
      "# shutdownTimeout, in ms (worker.ts, default 25_000). With handleSignals (the\n"
      "# default) it calls stop() on SIGTERM and SIGINT itself\n"
      "{}"
      "const worker = new OJSWorker({{ url, shutdownTimeout: {} }});\n",
      grace_note(in, "//", "the SDK", kMillisecond, "milliseconds"),
      grouped(millis_up(bounded(in))));
  w.command = {"node", "worker.js"};
  return w;
}

// Sidekiq's and Faktory's Ruby worker's -t: whole seconds, at least 1 (cli.rb refuses 0).
std::int64_t ruby_timeout(const Input& in) {
  return std::max<std::int64_t>(seconds_up(bounded(in)), 1);
}

std::string ruby_note(const Input& in, std::string_view system) {
  if (in.grace == 0) {
    return fmt::format("# {} refuses a timeout below 1 second (cli.rb): 1 is the nearest.\n",
                       system);
  }
  return grace_note(in, "#", system, kSecond, "whole seconds (cli.rb: Integer)");
}

System sidekiq(const Input& in, bool pro) {
  System w;
  w.name = "Sidekiq";
  const std::int64_t t = ruby_timeout(in);
  w.settings = fmt::format(
      "# --- Sidekiq's shutdown timeout: -t {0} in the command below, or `:timeout: {0}`\n"
      "# in config/sidekiq.yml (cli.rb, whole seconds)\n"
      "{1}",
      t, ruby_note(in, "Sidekiq"));
  if (pro) {
    w.settings +=
        "# --- config/initializers/sidekiq.rb: super_fetch, which the sidekiq-pro profile models\n"
        "Sidekiq.configure_server do |config|\n"
        "  config.super_fetch!\n"
        "end\n";
  }
  w.command = {"bundle", "exec", "sidekiq", "-t", std::to_string(t)};
  w.quiet = "TSTP";
  w.busy_title = true;
  return w;
}

System river(const Input& in) {
  System w;
  w.name = "River";
  w.command_note = kCommandNote;
  if (in.grace == kNever) {
    w.settings =
        "# --- main.go: without Config.SoftStopTimeout (the default) River's soft stop waits\n"
        "# for the jobs however long; only the platform's SIGKILL ends it. Without that field,\n"
        "# cancelling Start's context is a hard stop (client.go), so call Stop on TERM\n"
        "if err := riverClient.Start(context.Background()); err != nil {\n"
        "\tpanic(err)\n"
        "}\n"
        "sig := make(chan os.Signal, 1)\n"
        "signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)\n"
        "<-sig\n"
        "if err := riverClient.Stop(context.Background()); err != nil {\n"
        "\tpanic(err)\n"
        "}\n";
    return w;
  }
  if (in.grace == 0) {
    w.settings =
        "# --- main.go: a grace of 0 is River's hard stop at once. Without\n"
        "# Config.SoftStopTimeout, cancelling Start's context cancels the jobs' contexts\n"
        "# and waits for them, as StopAndCancel (client.go)\n";
  } else {
    w.settings = fmt::format(
        "# --- main.go: River 0.38+ limits the soft stop with Config.SoftStopTimeout, then\n"
        "# cancels the jobs' contexts and waits for them to return (a hard stop, as\n"
        "# StopAndCancel; client.go). Before 0.38, time it yourself (River's \"Graceful\n"
        "# shutdown\" page): on TERM, riverClient.Stop under a context.WithTimeout of {1};\n"
        "# when that times out, riverClient.StopAndCancel\n"
        "riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{{\n"
        "\tSoftStopTimeout: {0},\n"
        "\t// Queues, Workers: yours\n"
        "}})\n"
        "if err != nil {{\n"
        "\tpanic(err)\n"
        "}}\n",
        go_duration(in.grace), format_duration(in.grace));
  }
  w.settings +=
      "ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)\n"
      "defer stop()\n"
      "if err := riverClient.Start(ctx); err != nil {\n"
      "\tpanic(err)\n"
      "}\n"
      "<-riverClient.Stopped()\n";
  return w;
}

System bullmq(const Input& in) {
  System w;
  w.name = "BullMQ";
  w.command = {"node", "worker.js"};
  if (in.grace == kNever) {
    w.settings =
        "# --- worker.js: BullMQ's close() waits for the active jobs however long (\"This\n"
        "# call will not timeout by itself\", its guide's \"Graceful shutdown\"); wired to the\n"
        "# signals as its \"Going to production\" guide does, only the platform's SIGKILL\n"
        "# ends it\n"
        "const shutdown = async () => {\n"
        "  await worker.close();\n"
        "  process.exit(0);\n"
        "};\n"
        "process.on('SIGTERM', shutdown);\n"
        "process.on('SIGINT', shutdown);\n";
    return w;
  }
  w.settings = fmt::format(
      "# --- worker.js: BullMQ's close() has no timeout (\"This call will not timeout by\n"
      "# itself\", its guide's \"Graceful shutdown\"): the grace is the app's timer. The jobs\n"
      "# still active when it fires die with the process and stall, to run again (as\n"
      "# drainsim models it)\n"
      "{}"
      "let closing = false;\n"
      "const shutdown = async () => {{\n"
      "  if (closing) return; // a second signal changes nothing\n"
      "  closing = true;\n"
      "  setTimeout(() => process.exit(1), {});\n"
      "  await worker.close();\n"
      "  process.exit(0);\n"
      "}};\n"
      "process.on('SIGTERM', shutdown);\n"
      "process.on('SIGINT', shutdown);\n",
      grace_note(in, "//", "setTimeout", kMillisecond, "milliseconds"),
      grouped(millis_up(in.grace)));
  return w;
}

System oban(const Input& in) {
  System w;
  w.name = "Oban";
  w.settings = fmt::format(
      "# --- config/runtime.exs: Oban's shutdown_grace_period, in milliseconds\n"
      "# (Oban.start_link/1, default 15_000)\n"
      "{}"
      "config :my_app, Oban,\n",
      grace_note(in, "#", "Oban", kMillisecond, "milliseconds"));
  if (flag(in.s, "lifeline")) {
    w.settings += fmt::format("  plugins: [{{Oban.Plugins.Lifeline, rescue_after: {}}}],\n",
                              grouped(millis_up(duration_option(in.s, "rescue_after", kHour))));
  }
  w.settings += fmt::format("  shutdown_grace_period: {}\n", grouped(millis_up(bounded(in))));
  w.command = {"bin/my_app", "start"};
  w.command_note = "your release's start command";
  return w;
}

System faktory(const Input& in) {
  System w;
  if (flag(in.s, "go_worker")) {
    w.name = "faktory_worker_go";
    w.settings = fmt::format(
        "# --- main.go: faktory_worker_go 1.7+: Manager.ShutdownTimeout (manager.go, default\n"
        "# 25s); Run() stops on TERM and INT and quiets on TSTP (runner_unix.go)\n"
        "{}"
        "mgr := worker.NewManager()\n"
        "mgr.ShutdownTimeout = {}\n"
        "// register your jobs\n"
        "if err := mgr.Run(); err != nil {{\n"
        "\tpanic(err)\n"
        "}}\n",
        grace_note(in, "//", "faktory_worker_go", 1, ""), go_duration(bounded(in)));
    w.command_note = kCommandNote;
    w.quiet = "TSTP";
    return w;
  }
  w.name = "faktory-worker";
  const std::int64_t t = ruby_timeout(in);
  w.settings = fmt::format(
      "# --- Faktory's Ruby worker: its shutdown timeout is -t {0} in the command below, or\n"
      "# `:timeout: {0}` in config/faktory.yml (cli.rb, whole seconds)\n"
      "{1}",
      t, ruby_note(in, "faktory-worker"));
  w.command = {"bundle", "exec", "faktory-worker", "-t", std::to_string(t)};
  w.quiet = "TSTP";
  w.busy_title = true;
  return w;
}

System celery(const Input& in) {
  System w;
  w.name = "Celery";
  w.command = {"celery", "-A", "proj", "worker"};
  w.command_note = "-A proj: your Celery app";
  if (in.grace == kNever) {
    w.settings =
        "# --- Celery: TERM starts the warm shutdown, which waits for the running tasks\n"
        "# however long (Workers Guide, \"Warm Shutdown\"): nothing to set; only the\n"
        "# platform's SIGKILL ends it\n";
    return w;
  }
  w.env = {{"REMAP_SIGTERM", "SIGQUIT"}};
  if (in.grace == 0) {
    w.settings =
        "# --- Celery: a grace of 0 is the cold shutdown at once, which TERM starts with\n"
        "# REMAP_SIGTERM=SIGQUIT (below; Workers Guide, \"Cold Shutdown\"): the running tasks\n"
        "# are terminated\n";
    return w;
  }
  w.settings = fmt::format(
      "# --- celeryconfig.py: Celery's only warm shutdown with a time limit is the soft\n"
      "# shutdown (5.5+; Workers Guide, \"Soft Shutdown\"): worker_soft_shutdown_timeout\n"
      "# seconds for the running tasks, then the cold shutdown. It comes before a cold\n"
      "# shutdown (QUIT), so REMAP_SIGTERM=SIGQUIT (below) makes TERM start it. It waits its\n"
      "# whole timeout when any task is running (worker.py, wait_for_soft_shutdown), not\n"
      "# only until they end. Before 5.5 there is no timeout: the warm shutdown waits\n"
      "# forever (a grace of \"forever\"), and REMAP_SIGTERM=SIGQUIT would make TERM a cold\n"
      "# shutdown at once: leave it out there\n"
      "worker_soft_shutdown_timeout = {}\n",
      python_seconds(in.grace));
  return w;
}

System temporal(const Input& in) {
  System w;
  const Duration g = bounded(in);
  if (!flag(in.s, "waits_for_activities")) {
    w.name = "the Temporal Go SDK";
    w.settings = fmt::format(
        "# --- main.go: the Temporal Go SDK's worker.Options.WorkerStopTimeout (default 0);\n"
        "# Run stops the worker when InterruptCh delivers INT or TERM\n"
        "{}"
        "w := worker.New(c, \"your-task-queue\", worker.Options{{\n"
        "\tWorkerStopTimeout: {},\n"
        "}})\n"
        "// register your workflows and activities\n"
        "if err := w.Run(worker.InterruptCh()); err != nil {{\n"
        "\tlog.Fatalln(err)\n"
        "}}\n",
        grace_note(in, "//", "WorkerStopTimeout", 1, ""), go_duration(g));
    w.command_note = kCommandNote;
    return w;
  }
  w.name = "the Temporal SDK";
  w.settings = fmt::format(
      "# --- worker.py: the Temporal Python SDK's graceful_shutdown_timeout (default 0).\n"
      "# The SDK handles no signal: shut the worker down on TERM\n"
      "{}"
      "worker = Worker(client, task_queue=\"your-task-queue\", activities=[...],\n"
      "                graceful_shutdown_timeout=timedelta(seconds={}))\n"
      "stop = asyncio.Event()\n"
      "for sig in (signal.SIGTERM, signal.SIGINT):\n"
      "    asyncio.get_running_loop().add_signal_handler(sig, stop.set)\n"
      "async with worker:  # leaving the block calls worker.shutdown()\n"
      "    await stop.wait()\n"
      "# --- worker.ts: or the TypeScript SDK's shutdownGraceTime (ms, default 0; without\n"
      "# shutdownForceTime it waits for every activity). The Runtime's shutdownSignals\n"
      "# (SIGINT, SIGTERM, SIGQUIT, SIGUSR2) shut it down\n"
      "const worker = await Worker.create({{\n"
      "  connection, taskQueue: 'your-task-queue', activities,\n"
      "  shutdownGraceTime: {},\n"
      "}});\n"
      "await worker.run();\n",
      grace_note(in, "#", "the SDK", 1, ""), python_seconds(g), grouped(millis_up(g)));
  w.command_note = "command: your worker (python worker.py, node worker.js), in exec form";
  return w;
}

System graphile_worker(const Input& in) {
  System w;
  w.name = "graphile-worker";
  if (in.grace == kNever) {
    w.settings =
        "# --- graphile-worker: its own signal handling (the CLI's, or run()'s without\n"
        "# noHandleSignals) waits for the jobs however long, aborting their signals after\n"
        "# gracefulShutdownAbortTimeout (5_000 ms): nothing to set; only the platform's\n"
        "# SIGKILL ends it\n";
    w.command_note =
        "command: graphile-worker (the CLI) or your program calling run(), in exec form";
    return w;
  }
  // Runner.kill() turns forceful 0.5 s after it is called (runner.ts).
  const Duration early = std::max<Duration>(in.grace - 500 * kMillisecond, 0);
  w.settings = fmt::format(
      "# --- worker.js: graphile-worker has no graceful-shutdown timeout: its own handlers\n"
      "# wait for the jobs however long, and only a second signal forces a stop. So handle\n"
      "# the signals yourself and, when the grace ends, call runner.kill() (0.17+; 0.16 has\n"
      "# no forceful call): the forceful shutdown fails the jobs, to be retried. kill() turns\n"
      "# forceful 0.5s after it is called (runner.ts), so it is called 0.5s early\n"
      "const runner = await run({{\n"
      "  noHandleSignals: true,\n"
      "  gracefulShutdownAbortTimeout: 5_000, // aborts the jobs' signals 5s in (the default)\n"
      "  // connectionString, concurrency, taskDirectory: yours\n"
      "}});\n"
      "let stopping = false;\n"
      "for (const signal of ['SIGTERM', 'SIGINT']) {{\n"
      "  process.on(signal, async () => {{\n"
      "    if (stopping) return;\n"
      "    stopping = true;\n"
      "    setTimeout(() => runner.kill('grace period over').finally(() => process.exit(1)), {});\n"
      "    await runner.stop();\n"
      "    process.exit(0);\n"
      "  }});\n"
      "}}\n",
      grouped(millis_up(early)));
  w.command = {"node", "worker.js"};
  return w;
}

System pg_boss(const Input& in) {
  System w;
  w.name = "pg-boss";
  const Duration g = bounded(in);
  std::string stop;
  std::string note = grace_note(in, "//", "pg-boss", kMillisecond, "milliseconds");
  if (g == 0) {
    stop = "{ graceful: false }";
    note = "// A grace of 0: no graceful wait.\n";
  } else {
    stop = fmt::format("{{ graceful: true, timeout: {} }}", grouped(millis_up(g)));
    if (g < kSecond) note += "// stop() raises a timeout below 1_000 to 1_000 (index.ts).\n";
  }
  const bool v9 =
      in.s.worker.options.contains("fails_active_at_stop") && !flag(in.s, "fails_active_at_stop");
  w.settings = fmt::format(
      "# --- worker.js: pg-boss's stop({{ graceful, timeout }}), the timeout in ms (default\n"
      "# 30_000). pg-boss handles no signal: call it on TERM.\n"
      "# At the timeout {}.\n"
      "{}"
      "let stopping = false;\n"
      "const shutdown = async () => {{\n"
      "  if (stopping) return;\n"
      "  stopping = true;\n"
      "  await boss.stop({});\n"
      "  process.exit(0);\n"
      "}};\n"
      "process.on('SIGTERM', shutdown);\n"
      "process.on('SIGINT', shutdown);\n",
      v9 ? "pg-boss 9 leaves the jobs still active until they expire"
         : "pg-boss 10+ fails the jobs still active",
      note, stop);
  w.command = {"node", "worker.js"};
  return w;
}

System ductwork(const Input& in) {
  System w;
  w.name = "Ductwork";
  const std::int64_t job = seconds_up(bounded(in));
  // Above the job worker's (the seed's "Signal Handling": the supervisor's must be longer),
  // by 10 s as Ductwork's defaults are (20 and 30), but below the platform's SIGKILL.
  const Duration after_term = in.platform - pre_stop_time(in.pre_stop);
  const std::int64_t supervisor =
      std::max(job + 1, std::min(job + 10, (after_term - kMicrosecond) / kSecond));
  w.settings = fmt::format(
      "# --- config/ductwork.yml (your environment's section): the job worker's threads get\n"
      "# job_worker.shutdown_timeout seconds (default 20), then are killed; the\n"
      "# supervisor's shutdown_timeout must be longer (Ductwork's \"Signal Handling\")\n"
      "{}"
      "production:\n"
      "  job_worker:\n"
      "    shutdown_timeout: {}\n"
      "  supervisor:\n"
      "    shutdown_timeout: {}\n",
      grace_note(in, "#", "Ductwork", kSecond, "whole seconds"), job, supervisor);
  w.command = {"bin/ductwork"};
  return w;
}

System naive(const Input&) {
  System w;
  w.name = "this worker";
  w.settings =
      "# --- naive: this worker handles no signal, so it has no grace to set: as PID 1 it\n"
      "# ignores TERM and runs until the platform's SIGKILL; under an init, TERM kills it\n"
      "# at once. The platform's grace below is its only setting\n";
  w.command_note = kCommandNote;
  return w;
}

System unknown(const Input& in) {
  System w;
  w.name = "the worker";
  w.settings = fmt::format("# --- worker.profile {}: give its own shutdown timeout the value {}\n",
                           in.s.worker.profile, format_grace(in.grace));
  w.command_note = kCommandNote;
  return w;
}

}  // namespace

System system_of(const Input& in) {
  const std::string& p = in.s.worker.profile;
  if (p == "ojs") return ojs(in);
  if (p == "ojs-go-sdk") return ojs_go_sdk(in);
  if (p == "ojs-js-sdk") return ojs_js_sdk(in);
  if (p == "sidekiq" || p == "sidekiq-pro") return sidekiq(in, p == "sidekiq-pro");
  if (p == "river") return river(in);
  if (p == "bullmq") return bullmq(in);
  if (p == "oban") return oban(in);
  if (p == "faktory") return faktory(in);
  if (p == "celery") return celery(in);
  if (p == "temporal") return temporal(in);
  if (p == "graphile-worker") return graphile_worker(in);
  if (p == "pg-boss") return pg_boss(in);
  if (p == "ductwork") return ductwork(in);
  if (p == "naive") return naive(in);
  return unknown(in);
}

}  // namespace drainsim::snippet
