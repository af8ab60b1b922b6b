// The scenario loader (io/scenario_reader.h), as `validate` and `run` call it: any bytes
// give a Scenario or a ScenarioError, nothing else. An input whose first line is
// "@set PATH=VALUE" has that line applied as a --set override to the rest.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.h"
#include "io/scenario_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  constexpr std::string_view kSet = "@set ";
  if (text.substr(0, kSet.size()) == kSet) {
    const std::size_t nl = text.find('\n');
    overrides.emplace_back(
        text.substr(kSet.size(), nl == text.npos ? text.npos : nl - kSet.size()));
    text.remove_prefix(nl == text.npos ? text.size() : nl + 1);
  }
  try {
    const drainsim::Scenario s = drainsim::parse_scenario(text, "fuzz.json", overrides);
    (void)s;
  } catch (const drainsim::ScenarioError&) {
  }
  return 0;
}
