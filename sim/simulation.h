// Simulation: wires one run together (recorder, backend, platform, workload, scripted
// events) on a Runtime, runs it to the end on an engine, audits it and builds the
// results document. On the virtual engine the same scenario and seed give a
// byte-identical document.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "job_runner.h"
#include "recorder.h"
#include "scenario.h"

namespace drainsim {

enum class Engine {
  kVirtual,   // discrete-event, one thread, deterministic
  kRealtime,  // Boost.Asio on real threads, time scaled to the wall clock
};
const char* to_string(Engine e);

struct RunOptions {
  bool timeline = false;
  Engine engine = Engine::kVirtual;
  double time_scale = 100;             // realtime: simulated seconds per real second
  int threads = 2;                     // realtime: the thread pool
  JobBody job_body = JobBody::kSleep;  // realtime: how job bodies run (virtual: timers)
  BackendFaults faults;                // test-only
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
