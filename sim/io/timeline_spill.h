// TimelineSpill: a TimelineSink (model/timeline.h) that writes each record, as the run
// makes it, as its row of the results document: the JSON text nlohmann's dump gives the
// row (times through io/json_seconds, byte for byte nlohmann's), each table into its own
// SpillFile. A run's timeline then costs the tables' buffers (1 MB each), not memory per
// job, and the document's hash and writer read the rows back. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>

#include "io/spill_file.h"
#include "model/timeline.h"

namespace drainsim {

class TimelineSpill final : public TimelineSink {
 public:
  // `buffer`: each table's buffer (SpillFile).
  explicit TimelineSpill(std::size_t buffer = SpillFile::kDefaultBuffer);

  void add(const AttemptRecord& r) override;
  void add(const PodStateRecord& r) override;
  void add(const SignalRecord& r) override;
  void add(const RemainingRecord& r) override;
  void add(const SeriesPoint& r) override;
  void add(const HeartbeatRecord& r) override;
  void add(const ReportRecord& r) override;

  // Writes the results document's "timeline" object, compact, its tables in the order of
  // their names: the bytes of timeline_json (io/results.h) of the same records, dumped.
  // Throws std::runtime_error when a table's file could not be written or read.
  void write(const TextSink& out) const;
  // write() for the last time, giving each table's pages back as `out` takes them
  // (SpillFile::read_and_release): what `out` writes to a file reuses them.
  void write_and_release(const TextSink& out);
  // The "timeline" object read back: for short runs and tests.
  nlohmann::json json() const;
  // The rows so far, all tables together, and their bytes.
  std::uint64_t rows() const;
  std::uint64_t bytes() const;

 private:
  enum Table { kAttempts, kPodStates, kSignals, kRemaining, kSeries, kHeartbeats, kReports };
  static constexpr std::size_t kTables = 7;
  // A row of table `t` has up to `n` bytes: returns where to write them (after the comma
  // that separates it from the row before).
  char* begin_row(Table t, std::size_t n);
  // Writes the timeline object with read(table, out) giving each table's rows.
  static void write(const TextSink& out, const std::function<void(Table, const TextSink&)>& read);

  struct Rows {
    explicit Rows(std::size_t buffer) : file(buffer) {}
    SpillFile file;
    std::uint64_t count = 0;
  };
  std::array<Rows, kTables> tables_;
};

}  // namespace drainsim
