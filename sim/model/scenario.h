// A scenario: what runs (workload), against what (backend, worker profile, platform) and
// what happens to it (events). Plain values, filled and validated by io/scenario_reader; the
// format is documented in docs/scenario.md and docs/scenario.schema.json.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/duration.h"
#include "base/names.h"
#include "model/backend_mechanisms.h"
#include "model/profile_options.h"
#include "model/shutdown_behaviour.h"
#include "model/signals.h"

namespace drainsim {

// The bounds of a scenario's counts and rates (docs/scenario.md, "Limits"; the schema's
// maxima): generous for a real deployment, and small enough that what the loader accepts
// can run. Memory beyond them is the run's estimate's to judge (model/footprint.h).
inline constexpr int kMaxReplicas = 100'000;     // platform.replicas, nodes, events' counts
inline constexpr int kMaxConcurrency = 100'000;  // worker.concurrency
// Worker slots in all: the most replicas the scenario asks for times worker.concurrency.
inline constexpr std::int64_t kMaxSlots = 10'000'000;
// One arrival per microsecond, the clock's resolution.
inline constexpr double kMaxArrivalRate = 1'000'000;
inline constexpr std::int64_t kMaxBurst = 100'000'000;  // workload.arrival.count

struct DurationDistribution {
  enum class Kind { kConstant, kUniform, kExponential, kLognormal, kPareto, kEmpirical, kSequence };
  struct Bucket {
    Duration le = 0;  // upper edge; the bucket spans (previous le, le]
    double weight = 0;
  };
  Kind kind = Kind::kConstant;
  Duration value = 0;             // constant
  Duration min = 0, max = 0;      // uniform
  Duration mean = 0;              // exponential
  Duration median = 0, p99 = 0;   // lognormal
  Duration scale = 0;             // pareto
  double shape = 0;               // pareto
  std::vector<Duration> values;   // empirical {values} (uniform choice) or sequence
  std::vector<Bucket> histogram;  // empirical {histogram}
};

constexpr std::array<std::string_view, 7> names(DurationDistribution::Kind) {
  return {"constant", "uniform", "exponential", "lognormal", "pareto", "empirical", "sequence"};
}

struct ArrivalProcess {
  enum class Kind { kPoisson, kConstant, kBurst, kList };
  Kind kind = Kind::kPoisson;
  double rate_per_s = 0;    // poisson, constant
  std::int64_t count = 0;   // burst
  Time at = 0;              // burst
  std::vector<Time> times;  // list, ascending
};

constexpr std::array<std::string_view, 4> names(ArrivalProcess::Kind) {
  return {"poisson", "constant", "burst", "list"};
}

struct CancelBehaviour {
  double cooperative_fraction = 1.0;      // share of jobs that stop when cancelled
  Duration latency = 100 * kMillisecond;  // how long a cooperative job takes to stop
};

struct RetryPolicy {
  // How the delay before retry n (n = 1 after the first failure) grows.
  enum class Schedule : std::uint8_t {
    kExponential,  // initial_interval x backoff_coefficient^(n-1), at most max_interval
    kSidekiq,      // (n-1)^4 + 15 + rand(10) x n seconds (Sidekiq's job_retry.rb delay_for,
                   // retry_count = n - 1); the interval fields are not used
    kFaktory,      // (n-1)^4 + 15 + rand(30) x n seconds (the Faktory server's
                   // manager/retry.go, 1.9: count = n - 1)
    kRiver,        // n^4 seconds, +-10 % (River's DefaultClientRetryPolicy: (errors + 1)^4)
    kOban,         // 15 + 2^n whole seconds, plus 0-10 % (Oban.Worker's backoff, 2.15+), n
                   // scaled to round(n x 20 / max_attempts) when max_attempts > 20
  };
  int max_attempts = 3;  // total runs, the first included
  Duration initial_interval = kSecond;
  double backoff_coefficient = 2.0;
  Duration max_interval = 5 * kMinute;
  bool jitter = true;  // kExponential: multiply each delay by U[0.5, 1.5); kSidekiq,
                       // kFaktory: the rand x n term; kRiver, kOban: their +-10 % (false: none)
  Schedule schedule = Schedule::kExponential;
};

constexpr std::array<std::string_view, 5> names(RetryPolicy::Schedule) {
  return {"exponential", "sidekiq", "faktory", "river", "oban"};
}

// A class of jobs (docs/scenario.md, "Job classes"): its share of the arrivals and what its
// jobs do differently. The reader fills every field the scenario leaves out from the
// workload (job_duration, failure_rate) or the backend (retry).
struct JobClass {
  std::string name;
  double weight = 1;
  DurationDistribution job_duration;
  double failure_rate = 0;
  RetryPolicy retry;
  // Its jobs run one at a time, in queue order (graphile-worker's named job queues): while
  // one is held, however it ended up held, the others wait.
  bool serial = false;
  // All its jobs share one singleton key (pg-boss 9's singletonKey): a push while a job of
  // the class is unfinished (queued, waiting for a retry, or held by any worker, alive or
  // dead) is refused, and no job is created.
  bool singleton = false;
};

struct WorkloadConfig {
  ArrivalProcess arrival;
  DurationDistribution job_duration;
  CancelBehaviour cancel;
  bool checkpointing = false;
  Duration checkpoint_interval = 10 * kSecond;
  double failure_rate = 0;  // chance that an attempt fails with the job's own error
  std::string queue = "default";
  // Empty: every job is of the workload's one class. Else each arrival draws its class by
  // weight (JobSpec::job_class is its index).
  std::vector<JobClass> classes;

  double failure_rate_of(std::uint16_t job_class) const {
    return classes.empty() ? failure_rate : classes[job_class].failure_rate;
  }
};

struct BackendConfig {
  Duration visibility_timeout = 30 * kMinute;
  Duration heartbeat_timeout = 30 * kSecond;
  RetryPolicy retry;
  // Per workload.classes entry, that class's policy (filled by the scenario reader; empty
  // without classes): not a scenario field.
  std::vector<RetryPolicy> class_retry;
  const RetryPolicy& retry_of(std::uint16_t job_class) const {
    return class_retry.empty() ? retry : class_retry[job_class];
  }
  // Per workload.classes entry, whether it is serial (filled by the scenario reader).
  std::vector<bool> class_serial;
  bool serial(std::uint16_t job_class) const {
    return !class_serial.empty() && class_serial[job_class];
  }
  // Per workload.classes entry, whether it is a singleton (filled by the scenario reader).
  std::vector<bool> class_singleton;
  bool singleton(std::uint16_t job_class) const {
    return !class_singleton.empty() && class_singleton[job_class];
  }
  // The recovery mechanisms of the profile's backend, its options applied (resolved by the
  // scenario reader): not a scenario field.
  BackendMechanisms mechanisms;
};

struct WorkerConfig {
  std::string profile = "ojs";
  int concurrency = 10;
  Duration grace_period = 30 * kSecond;  // kNever: waits for its jobs however long they take
  Duration heartbeat_interval = 5 * kSecond;
  Duration poll_interval = kSecond;
  // The round trip of one fetch to the backend, drawn per fetch (the request reaches the
  // backend that long after the worker sends it; the reply is instant). 0: at once.
  DurationDistribution fetch_latency;
  // The worker program's start-up, drawn per process: it takes no job and registers with
  // the backend only this long after its container starts it (Ruby loading Sidekiq and the
  // app, Python importing Celery, Node its modules), so a pod is ready pod_start_delay plus
  // this after its creation. The profile's default is measured on its real system
  // (docs/profiles.md, Program start-up); 0: at once.
  DurationDistribution startup;
  std::vector<std::string> queues = {"default"};
  // Profile-specific, every option spelled out (the profile's defaults filled in).
  ProfileOptions options;
  ShutdownBehaviour shutdown;  // from the profile and its options, not a scenario field
};

struct PreStop {
  enum class Kind { kNone, kSleep, kQuietThenSleep, kQuietThenWait };
  Kind kind = Kind::kNone;
  Duration duration = 0;           // sleep, quiet_then_sleep
  Duration poll = 10 * kSecond;    // quiet_then_wait
  Duration timeout = 2 * kMinute;  // quiet_then_wait: SIGKILLs the worker then
};

constexpr std::array<std::string_view, 4> names(PreStop::Kind) {
  return {"none", "sleep", "quiet_then_sleep", "quiet_then_wait"};
}

// How long a preStop may hold TERM back: its sleep, or quiet_then_wait's timeout.
Duration pre_stop_time(const PreStop& p);
// The preStop in words: "none", "sleep 20s", "quiet_then_wait (timeout 2m)".
std::string pre_stop_text(const PreStop& p);

// A preStop still running at the grace's end: kubelet sends TERM and waits this much longer
// before SIGKILL (a one-off extension).
inline constexpr Duration kPreStopExtension = 2 * kSecond;

// What runs as PID 1 of the worker's container. The kernel applies no default action to a
// signal PID 1 has no handler for: a worker that is PID 1 and does not handle TERM runs on
// until SIGKILL (docs/semantics.md, "Signals").
enum class Pid1 : std::uint8_t {
  kWorker,  // the worker itself (exec form, or a script that execs it)
  kShell,   // a shell that does not forward signals (platform.pid1_shell)
  kInit,    // an init that forwards them (tini, dumb-init, docker run --init): platform.init
};

struct PlatformConfig {
  enum class Kind { kKubernetes, kDocker };
  Kind kind = Kind::kKubernetes;
  bool kubernetes() const { return kind == Kind::kKubernetes; }
  int replicas = 1;
  int nodes = 1;
  Duration termination_grace_period = 30 * kSecond;  // kubernetes
  Duration stop_grace_period = 10 * kSecond;         // docker
  PreStop pre_stop;
  Duration pod_start_delay = 10 * kSecond;
  Duration restart_delay = 10 * kSecond;
  bool pid1_shell = false;
  bool init = false;  // REQUIRES: not both with pid1_shell

  Pid1 pid1() const { return pid1_shell ? Pid1::kShell : init ? Pid1::kInit : Pid1::kWorker; }

  // The time from a deletion to SIGKILL: the Kubernetes or the Docker setting.
  Duration grace_period() const {
    return kind == Kind::kDocker ? stop_grace_period : termination_grace_period;
  }
};

constexpr std::array<std::string_view, 2> names(PlatformConfig::Kind) {
  return {"kubernetes", "docker"};
}

// A count of pods or a percentage of the replicas ("25%").
struct Amount {
  bool percent = false;
  double value = 0;  // pods, or percent in [0, 100]
  // Kubernetes rounding: maxSurge rounds up, maxUnavailable down.
  int resolve(int replicas, bool round_up) const;
};

struct ScenarioEvent {
  enum class Kind {
    kRollingRestart,  // max_surge, max_unavailable
    kOomKill,         // count, pod (optional)
    kScaleDown,       // replicas
    kScaleUp,         // replicas
    kSignal,          // pod, signal
    kNodeDrain,       // node
    kDirective,       // pod, state
    kDeletePod,       // pod: delete one pod (kubectl delete pod / docker stop)
    kOomKillChild,    // pod: the OOM killer takes one pool child of its worker
  };
  Time at = 0;
  Kind kind = Kind::kRollingRestart;
  Amount max_surge{true, 25};
  Amount max_unavailable{true, 25};
  int count = 1;
  int replicas = 0;
  int pod = -1;  // pod-N as N; -1 when not named
  Signal signal = Signal::kTerm;
  int node = 0;
  Directive state = Directive::kQuiet;
};

constexpr std::array<std::string_view, 9> names(ScenarioEvent::Kind) {
  return {"rolling_restart", "oom_kill",  "scale_down", "scale_up",      "signal",
          "node_drain",      "directive", "delete_pod", "oom_kill_child"};
}

// Where a scenario written by `drainsim import k8s` came from (docs/import.md): the
// manifests and the worker in them, which `tune --patch` reads again to write its
// recommendation back as a patch of the same object.
struct ScenarioOrigin {
  std::vector<std::string> files;  // relative to the scenario file's directory, or absolute
  std::string workload;            // the Deployment's or StatefulSet's name
  std::string container;           // the worker container's name
  std::string profile;             // the import's --profile; empty: read from the command
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration duration = 0;    // arrivals stop here
  Duration settle = kHour;  // the run ends at duration + settle at the latest
  WorkloadConfig workload;
  BackendConfig backend;
  WorkerConfig worker;
  PlatformConfig platform;
  std::vector<ScenarioEvent> events;     // sorted by `at`, stable
  std::optional<ScenarioOrigin> origin;  // imported scenarios only
};

}  // namespace drainsim
