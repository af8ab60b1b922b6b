#include "run/real_end.h"

#include <fmt/format.h>

#include "run/run_options.h"

namespace drainsim {

namespace {
constexpr Duration kInspectEvery = 2 * kSecond;  // while only the broker may hold work
}

RealEnd::RealEnd(StrandRuntime& rt, RealSystem& processes, std::function<bool()> idle, Time end,
                 std::string system)
    : rt_(rt),
      processes_(processes),
      idle_(std::move(idle)),
      end_(end),
      system_(std::move(system)) {}

void RealEnd::start() { rt_.schedule(end_, Priority::kBackend, this, 0); }

void RealEnd::check() {
  if (finished_ || inspecting_) return;
  if (const std::optional<RealFailure>& f = processes_.failure()) {
    // Neither a dead or hung broker nor a failed inspector can say where the jobs are.
    if (f->component == "broker" || f->component == "inspector") {
      return finish_unasked(fmt::format("its {} failed", f->component));
    }
    return inspect(false);  // its answer ends the run
  }
  if (rt_.now() >= end_) return inspect(false);
  if (idle_() && rt_.now() >= next_inspection_) inspect(true);
}

void RealEnd::interrupt() {
  if (finished_) return;
  if (interrupted) return finish_unasked("a second SIGINT or SIGTERM");
  interrupted = true;
  if (!inspecting_) inspect(false);
}

void RealEnd::inspect(bool early) {
  inspecting_ = true;
  processes_.inspect([this, early](const std::string& output, bool ok) {
    inspecting_ = false;
    if (finished_) return;
    // A failed inspection fails the run, and ends it without the broker's word.
    std::string error;
    if (!ok) {
      error = fmt::format("the {} inspector failed: {}", system_, output);
    } else {
      try {
        last = parse_inspection(output, system_);
      } catch (const RunError& e) {
        error = e.what();
      }
    }
    if (!error.empty()) {
      if (!interrupted) processes_.fail("inspector", error);
      return finish_unasked(interrupted
                                ? "its inspector failed after SIGINT or SIGTERM"
                                : fmt::format("its {} failed", processes_.failure()->component));
    }
    if (!early || interrupted || processes_.failure()) return finish(false);
    if (!holds_work(last) && idle_()) return finish(true);
    next_inspection_ = rt_.now() + kInspectEvery;
    rt_.schedule(next_inspection_, Priority::kBackend, this, 0);
  });
}

void RealEnd::finish_unasked(std::string why) {
  last.jobs.clear();  // an earlier inspection's word is stale; its versions still hold
  last.taken = false;
  last.not_taken = std::move(why);
  finish(false);
}

void RealEnd::finish(bool early) {
  if (finished_) return;
  finished_ = true;
  const Time at = early || rt_.now() < end_ ? rt_.now() : end_;
  rt_.halt();
  done_.set_value({at, early});
}

}  // namespace drainsim
