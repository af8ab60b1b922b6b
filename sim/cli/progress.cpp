#include "cli/progress.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace drainsim {

namespace {

constexpr std::size_t kBarWidth = 20;

std::size_t percent(std::size_t done, std::size_t total) {
  return total == 0 ? 100 : done * 100 / total;
}

}  // namespace

std::string format_clock(double seconds) {
  const long long s = seconds > 0 ? std::llround(seconds) : 0;
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

ProgressReport::ProgressReport(std::string label, bool terminal, double plain_interval_s,
                               std::string unit)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      terminal_(terminal),
      plain_interval_s_(plain_interval_s) {}

std::string ProgressReport::bar() const {
  const std::size_t filled = total_ == 0 ? kBarWidth : done_ * kBarWidth / total_;
  std::string out = fmt::format("{} [{}{}] {}/{} {} {}%", label_, std::string(filled, '#'),
                                std::string(kBarWidth - filled, '.'), done_, total_, unit_,
                                percent(done_, total_));
  if (done_ > 0 && done_ < total_) {
    const double eta =
        elapsed_s_ * static_cast<double>(total_ - done_) / static_cast<double>(done_);
    out += fmt::format("  ETA {}", format_clock(eta));
  }
  return out;
}

std::string ProgressReport::line() const {
  std::string out =
      fmt::format("{}: {}/{} {} ({}%)", label_, done_, total_, unit_, percent(done_, total_));
  if (done_ > 0) out += fmt::format(", {} elapsed", format_clock(elapsed_s_));
  if (done_ > 0 && done_ < total_) {
    const double eta =
        elapsed_s_ * static_cast<double>(total_ - done_) / static_cast<double>(done_);
    out += fmt::format(", ETA {}", format_clock(eta));
  }
  return out + '\n';
}

std::string ProgressReport::update(std::size_t done, std::size_t total, double elapsed_s) {
  const bool changed = !updated_ || done != done_ || total != total_;
  updated_ = true;
  done_ = done;
  total_ = total;
  elapsed_s_ = elapsed_s;
  if (terminal_) return fmt::format("\r{}\x1b[K", bar());  // clear what a longer bar left
  if (changed) last_written_ = false;
  if (last_line_s_ >= 0 && elapsed_s - last_line_s_ < plain_interval_s_) return {};
  last_line_s_ = elapsed_s;
  last_written_ = true;
  return line();
}

std::string ProgressReport::status(std::string_view text) const {
  return terminal_ ? fmt::format("\r{}: {}\x1b[K", label_, text) : std::string();
}

std::string ProgressReport::clear() const { return terminal_ ? "\r\x1b[K" : ""; }

std::string ProgressReport::finish() {
  if (!updated_) return {};
  if (terminal_) return "\n";
  if (last_written_) return {};
  last_written_ = true;
  return line();
}

}  // namespace drainsim
