// Simulation: wires one run together (virtual runtime, recorder, backend, platform,
// workload, scripted events), runs it to the end, audits it and builds the results
// document. Same scenario and seed give a byte-identical document.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "recorder.h"
#include "scenario.h"

namespace drainsim {

struct RunOptions {
  bool timeline = false;
  BackendFaults faults;  // test-only
};

struct RunOutput {
  nlohmann::json results;  // the results document (DESIGN.md, Metrics; results/README.md)
  AuditResult audit;
  std::string hash;  // result_hash: FNV-1a 64 of the document without it, in hex
  std::uint64_t events = 0;
  Time ended_at = 0;
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace drainsim
