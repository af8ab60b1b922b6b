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
  if (!processes_.fatal().empty()) return finish(false, processes_.fatal());
  if (rt_.now() >= end_) return inspect(false);
  if (idle_() && rt_.now() >= next_inspection_) inspect(true);
}

void RealEnd::interrupt() {
  if (finished_) return;
  if (interrupted) return finish(false, "");
  interrupted = true;
  if (!inspecting_) inspect(false);
}

void RealEnd::inspect(bool early) {
  inspecting_ = true;
  processes_.inspect([this, early](const std::string& output, bool ok) {
    inspecting_ = false;
    if (finished_) return;
    // Interrupted, a failed inspection ends the run without the broker's word.
    if (!ok) {
      return finish(false,
                    interrupted ? "" : fmt::format("the {} inspector failed: {}", system_, output));
    }
    try {
      last = parse_inspection(output, system_);
    } catch (const RunError& e) {
      return finish(false, interrupted ? "" : e.what());
    }
    if (!early || interrupted) return finish(false, "");
    if (!holds_work(last) && idle_()) return finish(true, "");
    next_inspection_ = rt_.now() + kInspectEvery;
    rt_.schedule(next_inspection_, Priority::kBackend, this, 0);
  });
}

void RealEnd::finish(bool early, std::string why) {
  if (finished_) return;
  finished_ = true;
  failure = std::move(why);
  const Time at = early || rt_.now() < end_ ? rt_.now() : end_;
  rt_.halt();
  done_.set_value({at, early});
}

}  // namespace drainsim
