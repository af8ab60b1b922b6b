// drainsim real's reduction: the attempts an adapter reported and the broker's last word
// (the inspector's) replayed into a Recorder, so that a real run's results are computed by
// the code every engine's are (docs/engines.md, "The real engine").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/job.h"
#include "io/adapter_events.h"
#include "model/recorder.h"

namespace drainsim {

// Where the broker holds each job at the end, by the inspector.
struct Inspection {
  nlohmann::json versions = nlohmann::json::object();
  std::map<JobId, std::string> jobs;  // available, scheduled, active, completed, discarded
  bool taken = true;                  // false: the run ended before the broker was asked
  std::string not_taken;  // when not taken, why: "a second SIGINT or SIGTERM", a failure
};

// The inspector's output ({"versions": ..., "jobs": {"ID": STATE}}); throws RunError naming
// `system`'s inspector and what was expected.
Inspection parse_inspection(const std::string& text, const std::string& system);

// Work the broker still has to hand out or finish.
bool holds_work(const Inspection& i);

// The audit's view of the broker: the jobs it still has to run (kept history aside).
class InspectedBackend final : public BackendView {
 public:
  explicit InspectedBackend(const Inspection& i);
  std::optional<JobState> job_state(std::uint32_t, JobId id) const override;
  std::size_t live_jobs() const override { return jobs_.size(); }

 private:
  std::map<JobId, JobState> jobs_;
};

// A job as it was pushed.
struct Pushed {
  JobId id = 0;
  Time written = 0;
  JobSpec spec;
  bool refused = false;  // the system refused it (a singleton class's key was taken): no job
};

// The adapter's attempts and the pushes replayed into `recorder` in time order, then each
// unfinished job settled by where the broker holds it. `confirmed`: when the enqueuer said
// each job was in the broker. The run ended at `ended_at`, when the inspection began: an
// attempt the adapter saw end after it, of a job the broker still holds, was still running
// when the broker was looked at, and counts as in flight at the end; so does an attempt
// still open at the end, on a process alive then, whatever the broker's list (which may
// lag) says of its job. A completion the adapter reported just before the end is final: a
// job whose latest attempt completed within 6 s of `ended_at`, with none of its attempts
// running, is settled completed even when the broker still lists it active (Sidekiq's list
// lags by up to a heartbeat, 5 s, and a run interrupted right after a completion asks at
// once); one that completed earlier and is still held fails the audit. An inspection not
// taken settles nothing: each job its attempts did
// not settle stays as they left it (pending), and a warning names them. Returns the
// broker's view for the audit: the inspection, with those held and unsettled jobs as the
// ledger has them.
// `availability_reported` (the manifest's "reports"): the adapter's "available" events say
// when the system made a job available again, and orphan recovery is measured to them, as
// the model measures it (one said while the attempt still ran counts from the attempt's
// end; a job run again without one is counted to that start, and a warning names it).
// Without them orphan recovery is not measured (Recorder::count_recovery).
Inspection replay(Recorder& recorder, const std::vector<Pushed>& pushed,
                  const std::map<std::uint64_t, Time>& confirmed, AdapterReport report,
                  const Inspection& inspection, Time ended_at, bool availability_reported);

}  // namespace drainsim
