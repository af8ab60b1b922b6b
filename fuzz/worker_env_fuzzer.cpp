// The worker's environment (process/http_worker.h, worker_config_from_env), as
// drainsim-worker reads it at start: any values give a configuration or an
// std::invalid_argument naming the variable, nothing else. The input is the values of the
// variables below, one per line, in this order; a line "-" leaves its variable unset, and
// the variables after the last line are unset too.
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "process/http_worker.h"

namespace {

constexpr std::array<const char*, 11> kNames = {"OJS_URL",
                                                "OJS_WORKER_ID",
                                                "OJS_QUEUES",
                                                "OJS_CONCURRENCY",
                                                "OJS_SHUTDOWN_GRACE_PERIOD",
                                                "OJS_HEARTBEAT_INTERVAL",
                                                "OJS_POLL_INTERVAL",
                                                "DRAINSIM_PROFILE",
                                                "DRAINSIM_PROFILE_OPTIONS",
                                                "DRAINSIM_PID1",
                                                "DRAINSIM_JOB_BODY"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::array<std::string, kNames.size()> values;
  std::array<bool, kNames.size()> set{};
  for (std::size_t i = 0; i < kNames.size() && !text.empty(); ++i) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    // An environment value ends at its first NUL, as getenv gives it.
    values[i] = std::string(line.substr(0, line.find('\0')));
    set[i] = line != "-";
    text.remove_prefix(nl == text.npos ? text.size() : nl + 1);
  }
  const auto get = [&](const char* name) -> const char* {
    for (std::size_t i = 0; i < kNames.size(); ++i) {
      if (std::string_view(name) == kNames[i]) return set[i] ? values[i].c_str() : nullptr;
    }
    return nullptr;
  };
  try {
    (void)drainsim::worker_config_from_env(get);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
