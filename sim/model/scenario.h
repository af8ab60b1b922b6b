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

namespace drainsim {

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

inline constexpr std::array<Named<DurationDistribution::Kind>, 7> kDistributionKindNames{{
    {DurationDistribution::Kind::kConstant, "constant"},
    {DurationDistribution::Kind::kUniform, "uniform"},
    {DurationDistribution::Kind::kExponential, "exponential"},
    {DurationDistribution::Kind::kLognormal, "lognormal"},
    {DurationDistribution::Kind::kPareto, "pareto"},
    {DurationDistribution::Kind::kEmpirical, "empirical"},
    {DurationDistribution::Kind::kSequence, "sequence"},
}};
constexpr const auto& names(DurationDistribution::Kind) { return kDistributionKindNames; }

struct ArrivalProcess {
  enum class Kind { kPoisson, kConstant, kBurst, kList };
  Kind kind = Kind::kPoisson;
  double rate_per_s = 0;    // poisson, constant
  std::int64_t count = 0;   // burst
  Time at = 0;              // burst
  std::vector<Time> times;  // list, ascending
};

inline constexpr std::array<Named<ArrivalProcess::Kind>, 4> kArrivalKindNames{{
    {ArrivalProcess::Kind::kPoisson, "poisson"},
    {ArrivalProcess::Kind::kConstant, "constant"},
    {ArrivalProcess::Kind::kBurst, "burst"},
    {ArrivalProcess::Kind::kList, "list"},
}};
constexpr const auto& names(ArrivalProcess::Kind) { return kArrivalKindNames; }

struct CancelBehaviour {
  double cooperative_fraction = 1.0;      // share of jobs that stop when cancelled
  Duration latency = 100 * kMillisecond;  // how long a cooperative job takes to stop
};

struct WorkloadConfig {
  ArrivalProcess arrival;
  DurationDistribution job_duration;
  CancelBehaviour cancel;
  bool checkpointing = false;
  Duration checkpoint_interval = 10 * kSecond;
  double failure_rate = 0;  // chance that an attempt fails with the job's own error
  std::string queue = "default";
};

struct RetryPolicy {
  int max_attempts = 3;  // total runs, the first included
  Duration initial_interval = kSecond;
  double backoff_coefficient = 2.0;
  Duration max_interval = 5 * kMinute;
  bool jitter = true;  // multiply each delay by U[0.5, 1.5)
};

struct BackendConfig {
  Duration visibility_timeout = 30 * kMinute;
  Duration heartbeat_timeout = 30 * kSecond;
  RetryPolicy retry;
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

inline constexpr std::array<Named<PreStop::Kind>, 4> kPreStopKindNames{{
    {PreStop::Kind::kNone, "none"},
    {PreStop::Kind::kSleep, "sleep"},
    {PreStop::Kind::kQuietThenSleep, "quiet_then_sleep"},
    {PreStop::Kind::kQuietThenWait, "quiet_then_wait"},
}};
constexpr const auto& names(PreStop::Kind) { return kPreStopKindNames; }

struct PlatformConfig {
  enum class Kind { kKubernetes, kDocker };
  Kind kind = Kind::kKubernetes;
  int replicas = 1;
  int nodes = 1;
  Duration termination_grace_period = 30 * kSecond;  // kubernetes
  Duration stop_grace_period = 10 * kSecond;         // docker
  PreStop pre_stop;
  Duration pod_start_delay = 10 * kSecond;
  Duration restart_delay = 10 * kSecond;
  bool pid1_shell = false;

  // The time from a deletion to SIGKILL: the Kubernetes or the Docker setting.
  Duration grace_period() const {
    return kind == Kind::kDocker ? stop_grace_period : termination_grace_period;
  }
};

inline constexpr std::array<Named<PlatformConfig::Kind>, 2> kPlatformKindNames{{
    {PlatformConfig::Kind::kKubernetes, "kubernetes"},
    {PlatformConfig::Kind::kDocker, "docker"},
}};
constexpr const auto& names(PlatformConfig::Kind) { return kPlatformKindNames; }

enum class Signal { kTerm, kInt, kTstp, kCont, kKill, kQuit };
inline constexpr std::array<Named<Signal>, 6> kSignalNames{{
    {Signal::kTerm, "SIGTERM"},
    {Signal::kInt, "SIGINT"},
    {Signal::kTstp, "SIGTSTP"},
    {Signal::kCont, "SIGCONT"},
    {Signal::kKill, "SIGKILL"},
    {Signal::kQuit, "SIGQUIT"},
}};
constexpr const auto& names(Signal) { return kSignalNames; }

// A count of pods or a percentage of the replicas ("25%").
struct Amount {
  bool percent = false;
  double value = 0;  // pods, or percent in [0, 100]
  // Kubernetes rounding: maxSurge rounds up, maxUnavailable down.
  int resolve(int replicas, bool round_up) const;
};

enum class Directive { kRunning, kQuiet, kTerminate };
inline constexpr std::array<Named<Directive>, 3> kDirectiveNames{{
    {Directive::kRunning, "running"},
    {Directive::kQuiet, "quiet"},
    {Directive::kTerminate, "terminate"},
}};
constexpr const auto& names(Directive) { return kDirectiveNames; }

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

inline constexpr std::array<Named<ScenarioEvent::Kind>, 8> kEventKindNames{{
    {ScenarioEvent::Kind::kRollingRestart, "rolling_restart"},
    {ScenarioEvent::Kind::kOomKill, "oom_kill"},
    {ScenarioEvent::Kind::kScaleDown, "scale_down"},
    {ScenarioEvent::Kind::kScaleUp, "scale_up"},
    {ScenarioEvent::Kind::kSignal, "signal"},
    {ScenarioEvent::Kind::kNodeDrain, "node_drain"},
    {ScenarioEvent::Kind::kDirective, "directive"},
    {ScenarioEvent::Kind::kDeletePod, "delete_pod"},
}};
constexpr const auto& names(ScenarioEvent::Kind) { return kEventKindNames; }

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
  std::vector<ScenarioEvent> events;  // sorted by `at`, stable
};

inline const char* to_string(Signal s) { return name_of(s).data(); }     // "SIGTERM", ...
inline const char* to_string(Directive d) { return name_of(d).data(); }  // "running", ...
inline std::optional<Directive> parse_directive(std::string_view text) {
  return from_name<Directive>(text);
}

}  // namespace drainsim
