// What a run is asked (RunOptions) and what it gives back (RunOutput), for every engine
// (run/run_scenario.h dispatches to them). The options every engine takes sit at the top of
// RunOptions; the rest are grouped by the engine, or family of engines, that reads them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.h"
#include "engine/job_runner.h"
#include "engine/runtime.h"
#include "io/timeline_spill.h"
#include "model/backend_faults.h"
#include "model/fate_rule.h"
#include "model/run_summary.h"

namespace drainsim {

enum class Engine {
  kVirtual,   // discrete-event, one thread, deterministic (run/virtual_engine.h)
  kRealtime,  // Boost.Asio on real threads, time scaled to the wall clock (run/realtime_engine.h)
  kProcess,   // as realtime, with every worker a real process speaking HTTP (run/process_engine.h)
  kReal,      // a real job system's workers on a real broker, in real time (run/real_engine.h)
};
constexpr std::array<std::string_view, 4> names(Engine) {
  return {"virtual", "realtime", "process", "real"};
}
inline const char* to_string(Engine e) { return name_of(e).data(); }
// The engines paced to the wall clock by a time scale: realtime and process.
inline bool paced(Engine e) { return e == Engine::kRealtime || e == Engine::kProcess; }

// realtime: how a worker process's strand reaches the models (backend, recorder,
// platform): by posting to the models' strand, or by taking the models' lock.
enum class ModelAccess { kStrand, kLock };
constexpr std::array<std::string_view, 2> names(ModelAccess) { return {"strand", "lock"}; }

// The virtual engine's watch over a long run.
struct VirtualLimits {
  // Stop once this many events have run (0: no limit), the results partial and marked
  // interrupted (RunOutput::interrupted, results run.interrupted).
  std::uint64_t max_events = 0;
  // Asked every kWatchEvents events with the simulated time, the time the run ends at the
  // latest and the events run so far; false stops the run there, as max_events does (a
  // Ctrl+C).
  std::function<bool(Time now, Time end, std::uint64_t events)> keep_going;
};
inline constexpr std::uint64_t kWatchEvents = 1 << 16;

// The engines paced to the wall clock (realtime, process).
struct PacedOptions {
  double time_scale = kDefaultTimeScale;  // simulated seconds per real second
  int threads = 2;                        // the thread pool
  // Told the simulated time as the run goes (on the models' side, at most once per 1/200
  // of duration + settle), with the time the run ends at the latest.
  std::function<void(Time now, Time end)> on_time;
};

// The realtime engine's worker processes.
struct RealtimeOptions {
  JobBody job_body = JobBody::kSleep;       // how job bodies run (virtual: timers)
  ModelAccess access = ModelAccess::kLock;  // measured faster (docs/engines.md)
};

// The process engine's worker programs.
struct ProcessOptions {
  std::string worker_binary;  // drainsim-worker (default: beside this program)
  std::string worker_cmd;     // a shell command line run instead of it
  std::string worker_log;     // file for the workers' output (default: none)
  // The most of the workers' output worker_log gets, in bytes (0: no cap).
  std::uint64_t worker_log_max = std::uint64_t{64} << 20;
  // Told a warning the moment it is found (a worker that ended without registering),
  // before the results list it; on the models' side.
  std::function<void(const std::string&)> on_warning;
};

// The real engine: which system, and where its adapter is.
struct RealOptions {
  std::string system;    // an adapter's system.json "system"
  std::string adapters;  // the adapters' folder (default: adapters_folder())
  int repeat = 0;        // which repeat this is (recorded in the results)
  std::string keep;      // copy the events file and the programs' logs here
  // Told what is being started (the broker and its folder), for the user.
  std::function<void(const std::string&)> progress;
};

struct RunOptions {
  Engine engine = Engine::kVirtual;
  bool timeline = false;
  // With `timeline`: keep the timeline out of RunOutput::results, written as the run goes
  // to RunOutput::timeline (write it with write_results). The document would cost about
  // 1.7 KB of memory per job, the records in memory about 150 bytes; the spill none.
  bool stream_timeline = false;
  // With `timeline`: the records handed over typed, in RunOutput::records, and left out of
  // the document (and so of its hash), for callers that read them (conformance).
  bool timeline_records = false;
  BackendFaults faults;  // test-only; not the real engine's (its backend is the broker)
  VirtualLimits limits;
  PacedOptions paced;
  RealtimeOptions realtime;
  ProcessOptions process;
  RealOptions real;
};

// Thrown when a run cannot go on (a worker program that cannot be started); the message
// says why. A run the user interrupts ends early, normally, with `interrupted` set.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The real system (or its broker) is not installed; the message says what to install.
struct SystemMissing : RunError {
  using RunError::RunError;
};

// The real engine's check of the profile's rule (model/fate_rule.h): how many attempts
// were running at a TERM or kill, and those whose fate the rule did not predict.
struct RuleCheck {
  std::size_t checked = 0;
  std::vector<FateCheck> mismatches;
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
  // real: a process of the run failed, and ended it: the results are partial
  // (summary.interrupted says which and why; results run.failed).
  bool failed = false;
  std::optional<RuleCheck> rule_check;  // real
  // real: what the system cannot tell, so the run does not measure it (the metrics, or
  // their groups: "orphan_recovery_delay_s"); results real.not_measured.
  std::vector<std::string> not_measured;
  std::shared_ptr<const Timeline> records;  // with RunOptions::timeline_records
  std::vector<ProcessRecord> processes;     // the platform's (the document's pods[].processes)
};

}  // namespace drainsim
