// A real job system's adapter manifest (adapters/<folder>/system.json, adapters/README.md):
// how `drainsim real` runs its worker, enqueuer and inspector, on which broker, and which
// scenario fields the real system is given. And the check that a scenario asks nothing of
// a real system that it is not given: every other worker and backend field must keep the
// profile's default.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/scenario.h"

namespace drainsim {

struct SystemManifest {
  std::string system;   // what --system takes
  std::string profile;  // the drainsim profile that models it
  std::string broker;   // "redis", "rabbitmq", "postgresql"
  std::string dir;      // the adapter folder, absolute
  std::vector<std::string> packages;
  std::vector<std::string> worker, enqueue, inspect;  // argv, with placeholders
  std::map<std::string, std::string> env;             // extra variables, with placeholders
  std::vector<std::string> honours;                   // JSON paths of scenario fields
  // The release the adapter runs, as the profile's options ("options"; the profile's
  // defaults where it is silent). Empty: the profile's defaults.
  ProfileOptions options;
  // "reports": ["available"]: the adapter says when its system makes a job available again
  // (adapters/README.md), so the real engine measures orphan recovery as the model does.
  bool reports_available = false;
};

// Reads `folder`/system.json. Throws InputError naming the file, the path and what was
// expected.
SystemManifest read_manifest(const std::string& folder);

// Every adapter folder of `adapters_dir` that has a system.json, by system name. Throws
// InputError for a bad manifest or two with one name.
std::map<std::string, SystemManifest> read_manifests(const std::string& adapters_dir);

// Why the real `system` cannot run `s`, one line per field (its JSON path first): a
// worker or backend field it is not given that differs from the profile's default (an
// option: from the release the manifest names; worker.fetch_latency models the network
// and worker.startup the program's start-up, and are never refused: the real system has
// its own), a
// workload feature it cannot play (checkpoints, uncooperative jobs unless honoured), a
// directive event. Empty when it can.
std::vector<std::string> not_honoured(const Scenario& s, const SystemManifest& system);

// `text` with each {name} replaced by values.at(name). Throws InputError naming `where`
// for an unknown placeholder.
std::string expand(const std::string& text, const std::map<std::string, std::string>& values,
                   const std::string& where);

}  // namespace drainsim
