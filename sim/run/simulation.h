// Simulation: wires one run together (recorder, backend, platform, workload, scripted
// events) on a Runtime, runs it to the end on an engine, audits it and builds the
// results document. On the virtual engine the same scenario and seed give a
// byte-identical document.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/names.h"
#include "engine/job_runner.h"
#include "io/timeline_spill.h"
#include "model/backend_faults.h"
#include "model/recorder.h"
#include "model/run_summary.h"
#include "model/scenario.h"

namespace drainsim {

enum class Engine {
  kVirtual,   // discrete-event, one thread, deterministic
  kRealtime,  // Boost.Asio on real threads, time scaled to the wall clock
  kProcess,   // as realtime, with every worker a real process speaking HTTP
  kReal,      // a real job system's workers on a real broker, in real time (run/real_run.h)
};
constexpr std::array<std::string_view, 4> names(Engine) {
  return {"virtual", "realtime", "process", "real"};
}
inline const char* to_string(Engine e) { return name_of(e).data(); }

// realtime: how a worker process's strand reaches the models (backend, recorder,
// platform): by posting to the models' strand, or by taking the models' lock.
enum class ModelAccess { kStrand, kLock };
constexpr std::array<std::string_view, 2> names(ModelAccess) { return {"strand", "lock"}; }

struct RunOptions {
  bool timeline = false;
  // With `timeline`: keep the timeline out of RunOutput::results, written as the run goes
  // to RunOutput::timeline (write it with write_results). The document would cost about
  // 1.7 KB of memory per job, the records in memory about 150 bytes; the spill none.
  bool stream_timeline = false;
  Engine engine = Engine::kVirtual;
  double time_scale = 100;                  // realtime: simulated seconds per real second
  int threads = 2;                          // realtime: the thread pool
  JobBody job_body = JobBody::kSleep;       // realtime: how job bodies run (virtual: timers)
  ModelAccess access = ModelAccess::kLock;  // realtime: measured faster (docs/engines.md)
  std::string worker_binary;  // process: drainsim-worker (default: beside this program)
  std::string worker_cmd;     // process: a shell command line run instead of it
  std::string worker_log;     // process: file for the workers' output (default: none)
  BackendFaults faults;       // test-only
  std::string system;         // real: the system (an adapter's system.json "system")
  std::string adapters;       // real: the adapters' folder (default: adapters_folder())
  int repeat = 0;             // real: which repeat this is (recorded in the results)
  std::string keep;           // real: copy the events file and the programs' logs here
  // real: told what is being started (the broker and its folder), for the user
  std::function<void(const std::string&)> progress;
  // realtime, process: told the simulated time as the run goes (on the models' side, at
  // most once per 1/200 of duration + settle), with the time the run ends at the latest.
  std::function<void(Time now, Time end)> on_time;
  // virtual: stop once this many events have run (0: no limit), the results partial and
  // marked interrupted (RunOutput::interrupted, results run.interrupted).
  std::uint64_t max_events = 0;
  // virtual: asked every kWatchEvents events with the simulated time, the time the run
  // ends at the latest and the events run so far; false stops the run there, as
  // max_events does (a Ctrl+C).
  std::function<bool(Time now, Time end, std::uint64_t events)> keep_going;
  // process: told a warning the moment it is found (a worker that ended without
  // registering), before the results list it; on the models' side.
  std::function<void(const std::string&)> on_warning;
  // process: the most of the workers' output worker_log gets, in bytes (0: no cap)
  std::uint64_t worker_log_max = std::uint64_t{64} << 20;
};

inline constexpr std::uint64_t kWatchEvents = 1 << 16;

// Thrown when a run cannot go on (a worker program that cannot be started); the message
// says why. A run the user interrupts ends early, normally, with `interrupted` set.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The real system (or its broker) is not installed; the message says what to install.
struct SystemMissing : RunError {
  using RunError::RunError;
};

struct RunOutput {
  RunSummary summary;      // the metrics, the audit and the warnings
  nlohmann::json results;  // the results document (results/README.md), built from `summary`
  std::string hash;        // result_hash: FNV-1a 64 of the document without it, in hex
  std::shared_ptr<TimelineSpill> timeline;  // with RunOptions::stream_timeline
  std::uint64_t events = 0;
  Time ended_at = 0;
  int processes_left = 0;  // process, real: workers still running at the end, killed, reaped
  // SIGINT or SIGTERM (realtime, process, real; virtual: keep_going said no) or max_events
  // ended it before its end: the results are partial (summary.interrupted says why).
  bool interrupted = false;
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace drainsim
