#include "cli/common.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "base/byte_size.h"
#include "base/input_file.h"
#include "base/parse.h"
#include "io/atomic_file.h"
#include "model/footprint.h"

namespace drainsim::cli {

bool emit(const std::string& text, const std::string& path) {
  if (path.empty()) {
    fmt::print("{}", text);
    return true;
  }
  std::string why;
  if (write_whole(
          path, [&](std::ostream& f) { f << text; }, &why))
    return true;
  fmt::print(stderr, "error: {}: cannot write it{}\n", path, why.empty() ? "" : " (" + why + ")");
  return false;
}

bool outputs_ok(const std::vector<Output>& outputs, const std::vector<std::string>& inputs) {
  for (const Output& o : outputs) {
    if (o.path.empty()) continue;
    const std::string named = o.option.empty() ? o.path : fmt::format("{} {}", o.option, o.path);
    const auto id = file_identity(o.path);
    for (const std::string& in : inputs) {
      if (id && id == file_identity(in)) {
        fmt::print(stderr,
                   "error: {}: is the input file {}: it would be overwritten; give another path\n",
                   named, in);
        return false;
      }
    }
    if (const std::string why = cannot_write(o.path); !why.empty()) {
      fmt::print(stderr, "error: {}: cannot write {} ({})\n", named, o.what, why);
      return false;
    }
  }
  return true;
}

CLI::Option* path_option(CLI::Option* option) {
  return option->check(CLI::Validator(
      [](const std::string& value) {
        return value.empty() ? std::string("an empty path: name one, or leave the option out")
                             : std::string();
      },
      "PATH"));
}

void report_audit_failure(const std::string& where, const SeedRun& r) {
  fmt::print(stderr, "error: the audit failed for {}, seed {}: {} jobs or totals do not balance\n",
             where, r.seed, r.audit_error_count);
  for (const std::string& e : r.audit_errors) fmt::print(stderr, "  {}\n", e);
}

bool parse_fault(const std::string& fault, BackendFaults& faults) {
  if (fault.empty()) return true;
  const std::string prefix = "drop-acked-job=";
  const bool prefixed = fault.rfind(prefix, 0) == 0;
  const std::optional<std::uint64_t> job =
      prefixed ? parse_number<std::uint64_t>(std::string_view(fault).substr(prefix.size()))
               : std::nullopt;
  if (!job) {
    fmt::print(stderr, "error: --inject-fault: expected drop-acked-job=JOB, got \"{}\"\n", fault);
    return false;
  }
  faults.drop_acked_job = *job;
  return true;
}

void add_scenario_argument(CLI::App* cmd, std::string& scenario) {
  cmd->add_option("scenario", scenario, "Scenario file (JSON)")->required();
}

void add_set_option(CLI::App* cmd, std::vector<std::string>& sets, const std::string& help) {
  cmd->add_option("--set", sets, help);
}

void add_seed_option(CLI::App* cmd, std::optional<std::uint64_t>& seed, const std::string& help) {
  // Checked on the text: CLI11 would wrap "-1" round to 2^64-1.
  cmd->add_option("--seed", seed, help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_number<std::uint64_t>(text)) return "";
            return fmt::format("expected a whole number from 0 to {}, got \"{}\"",
                               std::numeric_limits<std::uint64_t>::max(), text);
          },
          ""));
}

void add_time_scale_option(CLI::App* cmd, std::optional<double>& time_scale) {
  cmd->add_option("--time-scale", time_scale,
                  fmt::format("realtime, process: simulated seconds per real second (default {})",
                              kDefaultTimeScale))
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const std::optional<double> v = parse_number<double>(text);
            if (v && *v >= kMinTimeScale && *v <= kMaxTimeScale) return "";
            return fmt::format(
                "expected a number from {} to {} (simulated seconds per real second), got "
                "\"{}\"",
                kMinTimeScale, kMaxTimeScale, text.substr(0, 40));
          },
          "0.001..1000000"));
}

bool time_scale_applies(const std::optional<double>& time_scale, const std::vector<Engine>& engines,
                        const std::string& hint) {
  if (!time_scale) return true;
  for (Engine e : engines) {
    if (paced(e)) return true;
  }
  fmt::print(stderr, "error: --time-scale applies only to the realtime and process engines ({})\n",
             hint);
  return false;
}

void add_seeds_option(CLI::App* cmd, std::size_t& seeds, const std::string& help) {
  cmd->add_option("--seeds", seeds, help)->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
}

void add_max_memory_option(CLI::App* cmd, std::optional<std::uint64_t>& max_memory) {
  cmd->add_option_function<std::string>(
         "--max-memory",
         [&max_memory](const std::string& text) { max_memory = *parse_byte_size(text); },
         "Refuse a scenario whose run is estimated to need more memory than this, e.g. 12G or "
         "512M (default: half of this machine's memory)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_byte_size(text)) return "";
            return fmt::format(
                "expected a size like 12G or 512M (units K, M, G, T: powers of "
                "1024), got \"{}\"",
                text.substr(0, 40));
          },
          "SIZE"));
}

namespace {

// This machine's memory, or its cgroup's limit when lower (a container's); 0 when unknown.
std::uint64_t machine_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  std::uint64_t bytes = pages > 0 && page > 0
                            ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                            : 0;
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");  // cgroup v2; "max" when unlimited
  std::string limit;
  if (cgroup >> limit) {
    if (const auto v = parse_number<std::uint64_t>(limit); v && (bytes == 0 || *v < bytes)) {
      bytes = *v;
    }
  }
  return bytes;
}

}  // namespace

std::uint64_t default_max_memory() { return machine_memory() / 2; }

bool fits_in_memory(const Scenario& s, const std::string& source,
                    const std::optional<std::uint64_t>& max_memory) {
  const std::uint64_t limit = max_memory ? *max_memory : default_max_memory();
  if (!max_memory && limit == 0) return true;  // the machine's memory is unknown
  const MemoryEstimate m = estimate_memory(s);
  if (m.total() <= static_cast<double>(limit)) return true;
  const std::string given = max_memory
                                ? ""
                                : fmt::format(" (the default: half of this machine's {})",
                                              format_byte_size(static_cast<double>(2 * limit)));
  fmt::print(stderr,
             "error: {}: estimated memory {} is over --max-memory {}{}: {}; lower the first, or "
             "raise --max-memory\n",
             source, format_byte_size(m.total()), format_byte_size(static_cast<double>(limit)),
             given, m.explain());
  return false;
}

void add_threads_option(CLI::App* cmd, unsigned& threads) {
  cmd->add_option("--threads", threads, "Runs at once (default: the cores)")
      ->check(CLI::Range(1u, 4096u));
}

void add_fault_option(CLI::App* cmd, std::string& fault) {
  cmd->add_option("--inject-fault", fault, "Testing only: drop-acked-job=JOB")->group("");
}

}  // namespace drainsim::cli
