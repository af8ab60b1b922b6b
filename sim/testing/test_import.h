// Test helpers for drainsim import k8s (io/k8s_import.h): an imported field by its path,
// and the check that an imported scenario loads.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "io/k8s_import.h"
#include "io/scenario_reader.h"

namespace drainsim::test {

// The import's field at `path` ("worker.concurrency"); a test failure, and a placeholder,
// when it has none.
inline const ImportedField& field(const K8sImport& i, const std::string& path) {
  for (const ImportedField& f : i.fields) {
    if (f.path == path) return f;
  }
  static const ImportedField none{"(none)", nullptr, "", ""};
  ADD_FAILURE() << "no field " << path;
  return none;
}

// The imported scenario loads.
inline void loads(const K8sImport& i) {
  EXPECT_NO_THROW(parse_scenario(i.scenario.dump(), "imported")) << i.scenario.dump(2);
}

}  // namespace drainsim::test
