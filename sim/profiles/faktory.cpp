// Faktory with its Ruby worker (docs/profiles.md): BEAT replies quiet/terminate, TSTP quiets,
// TERM terminates.
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms&) {
  // faktory_worker_go 1.7.0 and later: at its ShutdownTimeout the job contexts are
  // cancelled; a job that returns is FAILed, one that ignores its context runs on until the
  // process is killed (manager.go terminate). The Ruby worker FAILs them all at once.
  if (option_bool(options, "go_worker")) {
    b.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  }
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
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
}  // namespace

Profile faktory() {
  Profile p = base("faktory",
                   "Faktory: TERM waits 25 s then FAILs busy jobs (normal retry); a dead worker's "
                   "jobs wait out their 30 min reservation, found by the 15 s reaper, then retry",
                   25 * kSecond);
  p.worker.heartbeat_interval = 15 * kSecond;  // BEAT
  p.worker.shutdown.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  p.worker.shutdown.logs_remaining = false;  // no remaining-count log (profiles.h)
  p.backend.retry.max_attempts = 26;         // the first run and 25 retries
  // count^4 + 15 + rand(30) x (count + 1) s, count 0 at the first failure (manager/retry.go).
  p.backend.retry.schedule = RetryPolicy::Schedule::kFaktory;
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.renewed_by_heartbeat = false;  // the reservation runs from the fetch
  p.mechanisms.lease.check_interval = 15 * kSecond;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  // ACK and FAIL clear the jid's reservation, whoever holds it (manager clearReservation).
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobIdWhileActive;
  p.options = {{"go_worker", false,
                "faktory_worker_go 1.7+ instead of the Ruby worker: at the 25 s timeout it "
                "cancels the jobs, and only those that return are FAILed"}};
  p.apply = apply;
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
