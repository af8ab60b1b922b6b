// Real job durations for an imported scenario (drainsim import k8s --durations,
// docs/import.md): read from a Prometheus histogram in the text exposition format, a CSV
// or JSON list of durations, or a Sidekiq or Celery log, and turned into the scenario's
// `workload.job_duration` (an empirical distribution) and, when the data says, its
// `workload.arrival`. Pure: the caller reads the file. Bad input is an InputError naming
// the file, the line (the JSON path in a JSON list) and what was expected. Thread-safe (no
// shared state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/duration.h"
#include "io/k8s_import.h"

namespace drainsim {

// The largest durations file read: a day of a busy worker's log.
inline constexpr std::uint64_t kMaxDurationsBytes = std::uint64_t{64} << 20;  // 64 MiB

// More values than this become a histogram of kValueBuckets buckets at their quantiles.
inline constexpr std::size_t kMaxValues = 10000;
inline constexpr std::size_t kValueBuckets = 1000;

struct DurationReadOptions {
  // The Prometheus histogram to read; empty: the file's only one, or the only one named for
  // the jobs' runtime (runtime, duration, elapsed, execution; not latency or wait).
  std::string metric;
  std::string match;  // `label="value",...`: its series; empty: all of them
  // The worker's queues: without `match`, the series labelled by queue (`queue`,
  // `queue_name`) are read for these queues only. Several series left are summed.
  std::vector<std::string> queues;
};

// A histogram bucket of its own jobs (not cumulative): those above the previous le and at
// most this one (the first from 0).
struct DurationBucket {
  double le = 0;  // seconds; infinity for the +Inf bucket
  double count = 0;
};

struct DurationData {
  std::string file;    // as given: "sidekiq-durations.prom"
  std::string format;  // "Prometheus histogram", "CSV", "JSON list", "Sidekiq log", "Celery log"
  std::string
      source;  // what was read: `sidekiq_job_runtime_seconds{queue="default"}`, "column elapsed"
  // A list's or a log's durations in seconds, in the file's order. Empty for a histogram.
  std::vector<double> values;
  // A histogram's buckets in increasing le, empty ones kept; the last may be +Inf.
  std::vector<DurationBucket> buckets;
  std::optional<double> sum;    // the histogram's _sum (seconds)
  std::optional<double> count;  // the histogram's _count (else its last bucket's count)
  std::string count_source;     // where the count is: `NAME_count{queue="default"}`
  // A log's first and last timestamps of a job's end, seconds apart, and how many jobs
  // ended between them (both included). Unset without two distinct timestamps.
  std::optional<double> span_s;
  std::size_t timed = 0;
};

// The durations in `text`, the file `file`: its format from its content, its extension a
// hint (".prom": a histogram, ".json": a list). Throws InputError.
DurationData read_durations(const std::string& file, const std::string& text,
                            const DurationReadOptions& options = {});

// The arrival rate, when not from the data's timestamps.
struct ArrivalOptions {
  std::optional<double> rate;      // --rate: jobs per second
  std::optional<Duration> window;  // --window: the time a histogram's _count covers
};

// Sets `workload.job_duration` (from `data`, when given) and `workload.arrival` (from
// --rate, a histogram's count over --window, a log's timestamps, or else drainsim's
// default: half the slots busy) in the import's scenario, and their report fields, each
// with its source and what the data covers: how many jobs, the shortest and longest, the
// share above the worker's grace and the pod's termination grace. Throws InputError (an
// option that does not fit the data: --window without a histogram's count).
void apply_durations(K8sImport& import, const DurationData* data, const ArrivalOptions& arrival);

}  // namespace drainsim
