// The simulator's readers of results-like files, each as its command calls it:
// `export` (chrome_trace of the parsed document; any json::exception is its exit 2),
// `fidelity --from` (summary_values; an InputError is its exit 2) and `merge`
// (parse_sweep_part, which never throws). Nothing else may escape, nothing may crash.
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/sweep_part.h"
#include "fuzz_target.h"
#include "io/json_reader.h"
#include "io/results.h"
#include "io/trace_export.h"

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {  // catalog_command.cpp, export_trace
    (void)drainsim::chrome_trace(json::parse(text));
  } catch (const json::exception&) {
  }
  const json doc = json::parse(text, nullptr, false);  // run_command.cpp, read_source
  if (!doc.is_discarded() && doc.is_object()) {
    try {
      (void)drainsim::summary_values(doc, "fuzz.json");
    } catch (const drainsim::InputError&) {
    }
  }
  (void)drainsim::parse_sweep_part(text, "fuzz.json");  // sweep_command.cpp, merge
  return 0;
}
