// drainsim-worker's configuration from its environment (worker_config_from_env): every
// variable read, the defaults, and each bad value refused with its name.
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "process/http_worker.h"

namespace drainsim {
namespace {

using Env = std::map<std::string, std::string>;

HttpWorkerConfig from(const Env& env) {
  return worker_config_from_env([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

// The message of the std::invalid_argument `env` raises, or "" when it is accepted.
std::string error_of(const Env& env) {
  try {
    from(env);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const Env kMinimal = {{"OJS_URL", "http://127.0.0.1:8080"}, {"OJS_WORKER_ID", "w-1"}};

Env with(Env env, const std::string& name, const std::string& value) {
  env[name] = value;
  return env;
}

TEST(WorkerEnv, EveryVariableIsRead) {
  Env env = kMinimal;
  env["OJS_URL"] = "http://localhost:41234/";  // a trailing slash is allowed
  env["OJS_QUEUES"] = "critical,,default";     // empty names are skipped
  env["OJS_CONCURRENCY"] = "4";
  env["OJS_SHUTDOWN_GRACE_PERIOD"] = "2.5s";
  env["OJS_HEARTBEAT_INTERVAL"] = "500ms";
  env["OJS_POLL_INTERVAL"] = "100ms";
  env["DRAINSIM_PROFILE"] = "bullmq";
  env["DRAINSIM_PROFILE_OPTIONS"] = "max_stalled_count=3,stalled_interval=5s";
  env["DRAINSIM_JOB_BODY"] = "spin";
  env["DRAINSIM_STARTUP"] = "1.25s";
  const HttpWorkerConfig c = from(env);
  EXPECT_EQ(c.startup, 1250 * kMillisecond);
  // The profile's own times are simulated: at 50 simulated seconds a real one, graphile's
  // 5 s abort comes 100 ms after the TERM, and Celery's 1.95 s teardown takes 39 ms.
  Env scaled =
      with(with(kMinimal, "DRAINSIM_PROFILE", "graphile-worker"), "DRAINSIM_TIME_SCALE", "50");
  EXPECT_EQ(from(scaled).worker.shutdown.cancel_after, 100 * kMillisecond);
  scaled["DRAINSIM_PROFILE"] = "celery";
  EXPECT_EQ(from(scaled).worker.shutdown.drain_linger, 39 * kMillisecond);
  EXPECT_EQ(from(scaled).worker.shutdown.cancel_after, kNever);
  EXPECT_EQ(c.host, "localhost");
  EXPECT_EQ(c.port, 41234);
  EXPECT_EQ(c.name, "w-1");
  EXPECT_EQ(c.worker.queues, (std::vector<std::string>{"critical", "default"}));
  EXPECT_EQ(c.worker.concurrency, 4);
  EXPECT_EQ(c.worker.grace_period, 2500 * kMillisecond);
  EXPECT_EQ(c.worker.heartbeat_interval, 500 * kMillisecond);
  EXPECT_EQ(c.worker.poll_interval, 100 * kMillisecond);
  EXPECT_EQ(c.worker.profile, "bullmq");
  env["OJS_SHUTDOWN_GRACE_PERIOD"] = "forever";  // kept as forever, never a number
  EXPECT_EQ(from(env).worker.grace_period, kNever);
  EXPECT_EQ(std::get<int>(c.worker.options.at("max_stalled_count")), 3);
  EXPECT_EQ(std::get<Duration>(c.worker.options.at("stalled_interval")), 5 * kSecond);
  EXPECT_EQ(c.bodies, JobBody::kSpin);
}

TEST(WorkerEnv, DefaultsWhereUnset) {
  const HttpWorkerConfig c = from(kMinimal);
  const WorkerConfig defaults;
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.worker.queues, defaults.queues);
  EXPECT_EQ(c.worker.concurrency, defaults.concurrency);
  EXPECT_EQ(c.worker.grace_period, defaults.grace_period);
  EXPECT_EQ(c.worker.profile, "ojs");
  EXPECT_EQ(c.bodies, JobBody::kSleep);
  EXPECT_EQ(c.startup, 0);
}

TEST(WorkerEnv, AProfileWithoutOptionsGetsItsDefaults) {
  const HttpWorkerConfig c = from(with(kMinimal, "DRAINSIM_PROFILE", "bullmq"));
  EXPECT_EQ(std::get<int>(c.worker.options.at("max_stalled_count")), 1);
  EXPECT_EQ(std::get<Duration>(c.worker.options.at("stalled_interval")), 30 * kSecond);
}

TEST(WorkerEnv, BadValuesAreRefusedByName) {
  EXPECT_EQ(error_of(Env{{"OJS_WORKER_ID", "w"}}), "OJS_URL=\"\": expected http://HOST:PORT");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_URL", "https://h:1")),
            "OJS_URL=\"https://h:1\": expected http://HOST:PORT");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_URL", "http://h:0")),
            "OJS_URL=\"http://h:0\": expected http://HOST:PORT");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_URL", "http://h:65536")),
            "OJS_URL=\"http://h:65536\": expected http://HOST:PORT");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_URL", "http://h")),
            "OJS_URL=\"http://h\": expected http://HOST:PORT");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_WORKER_ID", "")),
            "OJS_WORKER_ID is not set: expected the worker's id");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_QUEUES", ",")),
            "OJS_QUEUES is empty: expected queue names, comma-separated");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_CONCURRENCY", "0")),
            "OJS_CONCURRENCY=\"0\": expected an integer from 1 to 10000");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_CONCURRENCY", "4x")),
            "OJS_CONCURRENCY=\"4x\": expected an integer from 1 to 10000");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_SHUTDOWN_GRACE_PERIOD", "0s")),
            "OJS_SHUTDOWN_GRACE_PERIOD=\"0s\": expected a positive duration such as 250ms or 1.5s, "
            "or forever");
  EXPECT_EQ(error_of(with(kMinimal, "DRAINSIM_TIME_SCALE", "0")),
            "DRAINSIM_TIME_SCALE=\"0\": expected a number of simulated seconds per real second "
            "from 0.000001 to 1000000");
  // So small a scale would make the profile's times overflow once divided by it.
  EXPECT_NE(error_of(with(kMinimal, "DRAINSIM_TIME_SCALE", "1e-300")), "");
  EXPECT_NE(error_of(with(kMinimal, "DRAINSIM_TIME_SCALE", "nan")), "");
  EXPECT_EQ(error_of(with(kMinimal, "DRAINSIM_STARTUP", "soon")),
            "DRAINSIM_STARTUP=\"soon\": expected a positive duration such as 250ms or 1.5s");
  EXPECT_EQ(error_of(with(kMinimal, "DRAINSIM_JOB_BODY", "nap")),
            "DRAINSIM_JOB_BODY=\"nap\": expected sleep, spin or timer");
  EXPECT_EQ(error_of(with(kMinimal, "DRAINSIM_PROFILE", "sidekik"))
                .rfind("DRAINSIM_PROFILE: unknown profile \"sidekik\", expected one of ojs, ", 0),
            0u);
  const Env bullmq = with(kMinimal, "DRAINSIM_PROFILE", "bullmq");
  for (const char* bad :
       {"max_stalled_count=-1", "nosuch=1", "max_stalled_count", "stalled_interval=fast"}) {
    EXPECT_EQ(error_of(with(bullmq, "DRAINSIM_PROFILE_OPTIONS", bad)),
              std::string("DRAINSIM_PROFILE_OPTIONS: \"") + bad +
                  "\": expected NAME=VALUE with an option of the profile")
        << bad;
  }
}

// Hostile values (issue 20): refused by name, numbers too large for their type included, and
// the message quotes at most 80 characters of the value.
TEST(WorkerEnv, HostileValuesAreRefusedWithABoundedMessage) {
  EXPECT_EQ(error_of(with(kMinimal, "OJS_CONCURRENCY", "99999999999999999999")),
            "OJS_CONCURRENCY=\"99999999999999999999\": expected an integer from 1 to 10000");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_SHUTDOWN_GRACE_PERIOD", "1e400s")),
            "OJS_SHUTDOWN_GRACE_PERIOD=\"1e400s\": expected a positive duration such as 250ms or "
            "1.5s, or forever");
  EXPECT_EQ(error_of(with(kMinimal, "OJS_URL", "http://x:99999999999999999999")),
            "OJS_URL=\"http://x:99999999999999999999\": expected http://HOST:PORT");
  const std::string long_value(100000, '7');
  EXPECT_EQ(error_of(with(kMinimal, "OJS_CONCURRENCY", long_value)),
            "OJS_CONCURRENCY=\"" + std::string(77, '7') +
                "...\": expected an integer from 1 to "
                "10000");
  EXPECT_LT(error_of(with(kMinimal, "DRAINSIM_PROFILE", long_value)).size(), 1000u);
}

}  // namespace
}  // namespace drainsim
