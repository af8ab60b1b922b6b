// Oban (Elixir, Postgres) (docs/profiles.md; lifeline.ex, config.ex).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour&, BackendMechanisms& m) {
  m.rescuer.enabled = option_bool(options, "lifeline");
  m.rescuer.after = option_duration(options, "rescue_after");
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
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
}  // namespace

Profile oban() {
  Profile p = base("oban",
                   "Oban: TERM pauses queues and drains for 15 s, then the jobs are killed and "
                   "stay executing — for good, or until the opt-in Lifeline (every minute, > 60 "
                   "min) makes them available",
                   15 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  p.backend.retry.max_attempts = 20;
  // 15 + 2^attempt s, plus 0-10 % (Oban.Worker backoff/1, 2.15+; 2.14 jittered +-10 %).
  p.backend.retry.schedule = RetryPolicy::Schedule::kOban;
  p.mechanisms.heartbeat_detection = false;
  // Each node's producer, woken by the insert notification, fetches with SKIP LOCKED.
  p.mechanisms.dispatch = Dispatch::kRandomWaiter;
  p.mechanisms.lease.enabled = false;
  p.mechanisms.rescuer = Rescuer{false, kMinute, kHour, false};
  // complete_job, error_job, discard_job: UPDATE ... WHERE id, whatever the state.
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobId;
  p.options = {{"lifeline", false, "run the Lifeline plugin"},
               {"rescue_after", kHour, "Lifeline's rescue_after"}};
  p.apply = apply;
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
