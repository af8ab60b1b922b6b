#include "analysis/seed_run.h"

namespace drainsim {

SeedRun seed_run(std::uint64_t seed, const RunOutput& out) {
  const AuditResult& a = out.summary.audit;
  return {seed, out.hash, a.ok, a.error_count, a.errors, out.summary.warnings};
}

nlohmann::json audit_failure_json(const SeedRun& r) {
  return {{"seed", r.seed}, {"error_count", r.audit_error_count}, {"errors", r.audit_errors}};
}

}  // namespace drainsim
