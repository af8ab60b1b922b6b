// The OJS Go SDK as wired in the spec's §12.1 example: signal.NotifyContext(TERM, INT)
// cancels the context worker.Start runs under (docs/profiles.md, "What the public OJS SDKs
// actually do"), against an OJS reference backend.
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile ojs_go_sdk() {
  Profile p = base("ojs-go-sdk",
                   "OJS Go SDK: grace 25 s, heartbeats stop at drain, ACKs during drain are lost "
                   "(redelivered: duplicates), nothing sent at the deadline (left to visibility "
                   "timeout)",
                   25 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;    // NotifyContext catches TERM and INT only
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;  // still caught, context already done
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  b.heartbeats_while_draining = false;
  b.acks_fail_while_draining = true;  // the ACK call uses the cancelled context
  b.deregisters = false;
  p.mechanisms = ojs_reference_backend();
  return p;
}

}  // namespace drainsim::profiles
