// The process engine: the models on one strand, as on the realtime engine, and every
// container a real worker program (drainsim-worker, or ProcessOptions::worker_cmd) that
// reaches the backend over HTTP (process/process_engine_server.h). Throws RunError for a
// scenario the OJS HTTP binding cannot express and for a worker program that cannot run.
// SIGINT or SIGTERM ends the run early; either way every process is killed and reaped
// before it returns.
#pragma once

#include "model/scenario.h"
#include "run/run_options.h"

namespace drainsim {

RunOutput run_process(const Scenario& scenario, const RunOptions& options);

}  // namespace drainsim
