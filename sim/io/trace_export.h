// Chrome trace export (`drainsim export --format chrome-trace`): a run's timeline as a
// Trace Event Format JSON object that ui.perfetto.dev and chrome://tracing open.
//
// Mapping (README, "Looking at a run"): one process per pod, pid = pod + 1 (pid 0 is the kernel's
// idle process to Perfetto); in it one thread per worker slot, tid = pid * M + slot + 1,
// and a "lifecycle" thread, tid = pid * M, holding the pod's states as slices and its
// signals as instant events (M = 1000, or the next power of ten that keeps the slots of
// two pods apart). Every attempt is a complete ("X") event on its slot's thread, named
// "job J #A", category its outcome. Job counts over time are counter ("C") events of a
// last process, "backend" (pid = pods + 1). Names come in process_name / thread_name
// metadata ("M") events. Timestamps and durations are whole microseconds of simulated
// time. Slices never overlap on one thread: an attempt that would overlap the previous one
// in its slot goes to an extra "slot N (overlap K)" thread.
//
// Thread-safety: a pure function of its input.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace drainsim {

struct TraceExport {
  std::string trace;  // the trace document, one event per line; empty on error
  std::string error;  // why there is none (no timeline, not a results file)
};

// `results`: a parsed results document, its schema_version checked (io/results.h). Rows of
// the wrong length or kind give `error` naming the JSON path, e.g.
// "timeline.series.rows[0]: expected 4 values, got [4.4]"; another field of the wrong type
// (a pod that is not an object) throws nlohmann::json::type_error.
TraceExport chrome_trace(const nlohmann::json& results);

}  // namespace drainsim
