// Test-only faults of the backend, for proving the audit catches what it should
// (drainsim run --inject-fault).
#pragma once

#include <optional>

#include "base/job.h"

namespace drainsim {

struct BackendFaults {
  std::optional<JobId> drop_acked_job;  // accept this job's ack, then forget the job
};

}  // namespace drainsim
