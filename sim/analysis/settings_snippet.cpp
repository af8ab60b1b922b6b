// The settings snippet (analysis/settings_snippet.h): a job system's own settings
// (profiles/system_settings.h), then the Kubernetes and Compose parts, and tune's wrapper
// around it (analysis/tune.h).
#include "analysis/settings_snippet.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "analysis/tune.h"
#include "profiles/system_settings.h"

namespace drainsim {

namespace {

using namespace snippet;

// Whole seconds for a field that takes them, and the comment line (with `indent`) that says
// when they were rounded up.
std::int64_t whole_seconds(Duration d, std::string_view indent, std::string_view what,
                           std::string& note) {
  if (d % kSecond != 0) {
    note += fmt::format("{}# {} rounded up: {} takes whole seconds\n", indent, format_duration(d),
                        what);
  }
  return seconds_up(d);
}

// True when the process title of Sidekiq or faktory-worker reads "[0 of M busy]".
constexpr const char* kIdleFromTitle =
    R"sh(idle() { case "$(tr '\0' ' ' < /proc/$pid/cmdline)" in *"[0 of "*) return 0 ;; esac; return 1; })sh";

// The preStop that quiets the worker and waits until it is idle (quiet_then_wait), as a
// script after the Cloud 66 tutorial the scenario kind follows.
std::string wait_script(const System& w, const PreStop& p, bool init) {
  const std::int64_t poll = std::max<std::int64_t>(seconds_up(p.poll), 1);
  const std::int64_t timeout = seconds_up(p.timeout);
  std::vector<std::string> lines = {
      "# quiet_then_wait, after the tutorial \"Kubernetes: (Graceful) Sidekiq Worker",
      "# Lifecycle\" (Cloud 66):"};
  if (!w.quiet.empty()) {
    lines.push_back(fmt::format("# quiet the worker (SIG{}), then every {}s return once it runs",
                                w.quiet, poll));
    lines.push_back(
        fmt::format("# no job (TERM follows); at {}s, SIGKILL it as that script does.", timeout));
  } else {
    lines.push_back(
        fmt::format("# {} has no quiet signal, so it keeps fetching; every {}s", w.name, poll));
    lines.push_back(
        fmt::format("# return once it runs no job (TERM follows); at {}s, SIGKILL it.", timeout));
  }
  lines.push_back("# (A worker that is PID 1 ignores a SIGKILL sent from inside its");
  lines.push_back("# container: then the hook ends and TERM follows.)");
  if (p.poll % kSecond != 0 || p.timeout % kSecond != 0) {
    lines.push_back("# The poll and the timeout are rounded up to whole seconds.");
  }
  lines.push_back(init ? "pid=$(cut -d' ' -f1 /proc/1/task/1/children)  # the worker under the init"
                       : "pid=1");
  if (w.busy_title) {
    lines.push_back(
        fmt::format("# {} shows \"[N of M busy]\" in its process title, refreshed at", w.name));
    lines.push_back("# each heartbeat (10s): idle is seen up to 10s late.");
    lines.push_back(kIdleFromTitle);
  } else {
    lines.push_back(
        fmt::format("# {} shows no busy count in its process title: make idle()", w.name));
    lines.push_back("# ask it (its admin API, its metrics); as it is, the hook waits out its");
    lines.push_back("# timeout.");
    lines.push_back("idle() { return 1; }");
  }
  if (!w.quiet.empty()) lines.push_back(fmt::format("kill -{} \"$pid\"", w.quiet));
  lines.push_back(fmt::format("end=$(( $(date +%s) + {} ))", timeout));
  lines.push_back("while :; do");
  lines.push_back("  left=$(( end - $(date +%s) ))");
  lines.push_back(fmt::format("  sleep $(( left < {0} ? left : {0} ))", poll));
  lines.push_back(R"sh(  if [ "$(date +%s)" -ge "$end" ]; then kill -KILL "$pid"; exit 0; fi)sh");
  lines.push_back("  if idle; then exit 0; fi");
  lines.push_back("done");
  std::string out =
      "      lifecycle:\n        preStop:\n          exec:\n            command:\n"
      "              - sh\n              - -c\n              - |\n";
  for (const std::string& l : lines) out += "                " + l + "\n";
  return out;
}

std::string pre_stop_block(const System& w, const PreStop& p, bool init) {
  if (p.kind == PreStop::Kind::kNone) return {};
  if (p.kind == PreStop::Kind::kQuietThenWait) return wait_script(w, p, init);
  std::string out;
  const std::int64_t sleep = whole_seconds(p.duration, "      ", "this sleep", out);
  if (p.kind == PreStop::Kind::kQuietThenSleep && w.quiet.empty()) {
    out += fmt::format(
        "      # {} has no quiet signal (TSTP would do nothing to it as PID 1, and\n"
        "      # would stop it under an init): the hook only sleeps, as tune simulated\n",
        w.name);
  }
  out += "      lifecycle:\n        preStop:\n          exec:\n";
  if (p.kind == PreStop::Kind::kQuietThenSleep && !w.quiet.empty()) {
    return out + fmt::format("            command: [\"sh\", \"-c\", \"kill -{} 1 && sleep {}\"]\n",
                             w.quiet, sleep);
  }
  return out + fmt::format("            command: [\"sleep\", \"{}\"]\n", sleep);
}

std::string kubernetes(const Input& in, const System& w, const PreStop& p) {
  const PlatformConfig& pc = in.s.platform;
  std::string out = "# --- Kubernetes: the worker's pod template (Deployment .spec.template)\n";
  if (pc.pid1_shell) {
    out +=
        "# The scenario runs the worker under a shell that does not forward TERM\n"
        "# (platform.pid1_shell), and tune's numbers are for that shell. The exec form below\n"
        "# lets TERM reach the worker: tune again with --set platform.pid1_shell=false.\n";
  }
  if (pc.init) {
    out += "# platform.init: the image's entrypoint is an init that forwards signals (tini).\n";
  }
  out += "spec:\n";
  const std::int64_t grace = whole_seconds(in.platform, "  ", "Kubernetes", out);
  out += fmt::format("  terminationGracePeriodSeconds: {}\n", grace);
  out += "  containers:\n    - name: worker\n";
  if (!w.command_note.empty()) out += "      # " + w.command_note + "\n";
  if (!w.command.empty()) out += "      command: " + flow(w.command) + "\n";
  if (!w.env.empty()) {
    out += "      env:\n";
    for (const auto& [name, value] : w.env) {
      out += fmt::format("        - name: {}\n          value: \"{}\"\n", name, value);
    }
  }
  return out + pre_stop_block(w, p, pc.init);
}

std::string compose(const Input& in, const System& w, const PreStop& p, bool equivalent) {
  std::string out =
      equivalent ? "# --- Docker Compose equivalent (docker-compose.yml, the worker's service)\n"
                 : "# --- Docker Compose (docker-compose.yml, the worker's service)\n";
  if (equivalent && p.kind != PreStop::Kind::kNone) {
    out += fmt::format(
        "# Compose has no preStop: TERM comes at once. stop_grace_period keeps the pod's\n"
        "# {}s, so the preStop's {} go to the worker after TERM.\n",
        seconds_up(in.platform), format_duration(pre_stop_time(p)));
    if (p.kind != PreStop::Kind::kSleep && !w.quiet.empty()) {
      out +=
          "# Without the preStop's quiet the worker fetches until TERM: for the same jobs,\n"
          "# raise its grace by up to that much.\n";
    }
  }
  out += "services:\n  worker:\n";
  if (!w.command_note.empty()) out += "    # " + w.command_note + "\n";
  if (!w.command.empty()) out += "    command: " + flow(w.command) + "\n";
  if (!w.env.empty()) {
    out += "    environment:\n";
    for (const auto& [name, value] : w.env) out += fmt::format("      {}: \"{}\"\n", name, value);
  }
  if (in.s.platform.init) out += "    init: true\n";
  const std::int64_t grace = whole_seconds(in.platform, "    ", "Compose", out);
  return out + fmt::format("    stop_grace_period: {}s\n", grace);
}

}  // namespace

std::string settings_snippet(const Scenario& s, Duration worker_grace, Duration platform_grace,
                             const PreStop& pre_stop) {
  const bool k8s = s.platform.kubernetes();
  const PreStop none;
  const Input in{s, worker_grace, platform_grace, k8s ? pre_stop : none};
  const System w = system_of(in);
  std::string out = w.settings;
  if (k8s) {
    out += kubernetes(in, w, pre_stop);
    out += compose(in, w, pre_stop, true);
  } else {
    out += compose(in, w, none, false);
  }
  return out;
}

std::string settings_snippet(const Tune& t) {
  const TuneSetting* r = t.recommended();
  if (r == nullptr) return {};
  PreStop p = t.searches[*t.best].pre_stop;
  if (t.knob == TuneKnob::kPreStopTimeout) p.timeout = r->pre_stop_timeout;
  return settings_snippet(t.base, r->grace, r->platform_grace, p);
}

}  // namespace drainsim
