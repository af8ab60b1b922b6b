// Progress of a long command (a sweep) for stderr. On a terminal, a bar redrawn in place:
//   sweep [########............] 120/300 runs 40%  ETA 0:35
// Elsewhere (a CI log), plain lines, the first at once and then at most one per
// plain_interval_s, plus a final one from finish():
//   sweep: 120/300 runs (40%), 0:23 elapsed, ETA 0:35
// The unit counted is "runs" unless told otherwise (a long run counts "simulated s").
// Work of unknown size shows a status line instead, on a terminal only:
//   tune: preStop 5s, grace 30s (7 settings run)
// The caller passes the time (seconds since the start), so the text is a pure function of
// the calls; it writes nothing itself. Not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace drainsim {

// Whole seconds as M:SS, or H:MM:SS from an hour up; negative counts as 0.
std::string format_clock(double seconds);

class ProgressReport {
 public:
  ProgressReport(std::string label, bool terminal, double plain_interval_s = 10,
                 std::string unit = "runs");

  // What to write for `done` of `total` units at `elapsed_s`: a redrawn bar on a terminal,
  // a line or nothing otherwise. The ETA assumes the remaining runs go at the mean rate
  // so far; none is given before the first run is done.
  std::string update(std::size_t done, std::size_t total, double elapsed_s);

  // What to write at the end (done or stopped early): on a terminal the newline after the
  // bar; otherwise the last state as a line unless it was the last line written. Empty
  // when update was never called.
  std::string finish();

  // Work of unknown size (tune's search): "LABEL: TEXT" redrawn in place on a terminal;
  // nothing elsewhere. clear() erases it (on a terminal) before the result is printed.
  std::string status(std::string_view text) const;
  std::string clear() const;

 private:
  std::string bar() const;
  std::string line() const;

  std::string label_;
  std::string unit_;
  bool terminal_;
  double plain_interval_s_;
  std::size_t done_ = 0, total_ = 0;
  double elapsed_s_ = 0;
  bool updated_ = false;
  bool last_written_ = false;  // plain: the current state is the last line written
  double last_line_s_ = -1;    // plain: when the last line was written; -1 never
};

}  // namespace drainsim
