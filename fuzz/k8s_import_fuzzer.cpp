// drainsim import k8s (io/k8s_import.h) as the command calls it: any bytes give an
// imported scenario or an InputError, nothing else; what it imports either loads or is
// refused by the scenario reader with an InputError (a manifest past drainsim's limits).
#include <string>

#include "fuzz_target.h"
#include "io/k8s_import.h"
#include "io/scenario_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const drainsim::K8sImport imported = drainsim::import_k8s({{"fuzz.yaml", text}}, {});
    (void)drainsim::import_report(imported);
    (void)drainsim::parse_scenario(imported.scenario.dump(2), "imported.json");
  } catch (const drainsim::InputError&) {
  }
  return 0;
}
