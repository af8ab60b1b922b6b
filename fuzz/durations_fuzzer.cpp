// drainsim import k8s --durations (io/duration_data.h) as the command calls it: any bytes,
// read as each kind of file the extension hints at, give durations or an InputError,
// nothing else; durations applied to a fixed imported Deployment (with and without
// --window) give a job_duration the scenario reader accepts.
#include <string>

#include "fuzz_target.h"
#include "io/duration_data.h"
#include "io/json_reader.h"
#include "io/scenario_reader.h"

namespace {

const drainsim::K8sImport& base_import() {
  static const drainsim::K8sImport imported = drainsim::import_k8s(
      {{"deploy.yaml",
        "kind: Deployment\nmetadata: {name: w}\nspec:\n  replicas: 2\n  template:\n    spec:\n"
        "      containers:\n        - name: w\n          command: [sidekiq, -c, '5']\n"}},
      {});
  return imported;
}

void apply_and_load(const drainsim::DurationData& d, const drainsim::ArrivalOptions& arrival) {
  drainsim::K8sImport imported = base_import();
  try {
    drainsim::apply_durations(imported, &d, arrival);
  } catch (const drainsim::InputError&) {
    return;
  }
  (void)drainsim::import_report(imported);
  try {
    (void)drainsim::parse_scenario(imported.scenario.dump(2), "imported.json");
  } catch (const drainsim::InputError& e) {
    // A rate past drainsim's limits is refused with its path; the distribution never is.
    if (std::string(e.what()).find("job_duration") != std::string::npos) {
      drainsim::fuzz::fail("apply_durations wrote a job_duration the scenario reader refuses");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"fuzz.prom", "fuzz.json", "fuzz.log", "fuzz.csv"}) {
    try {
      const drainsim::DurationData d = drainsim::read_durations(name, text);
      apply_and_load(d, {});
      apply_and_load(d, {std::nullopt, drainsim::kHour});
    } catch (const drainsim::InputError&) {
    }
  }
  return 0;
}
