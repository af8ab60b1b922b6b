#include "run/run_scenario.h"

#include "run/process_engine.h"
#include "run/real_engine.h"
#include "run/realtime_engine.h"
#include "run/virtual_engine.h"

namespace drainsim {

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options) {
  switch (options.engine) {
    case Engine::kVirtual:
      return run_virtual(scenario, options);
    case Engine::kRealtime:
      return run_realtime(scenario, options);
    case Engine::kProcess:
      return run_process(scenario, options);
    case Engine::kReal:
      return run_real(scenario, options);
  }
  return {};
}

}  // namespace drainsim
