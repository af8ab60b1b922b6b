#include "widgets/time_window.h"

#include <algorithm>

#include "base/duration.h"

namespace drainsim::viewer {

namespace {

WindowChoice fail(std::string message) { return WindowChoice{std::nullopt, std::move(message)}; }

std::optional<double> seconds_of(const std::string& text) {
  const std::optional<Duration> d = parse_duration(text);
  if (!d) return std::nullopt;
  return to_seconds(*d);
}

std::string expected_duration(const char* option, const std::string& got) {
  return std::string(option) + ": expected a duration like 2m, got \"" + got + "\"";
}

}  // namespace

WindowChoice choose_window(const WindowRequest& request,
                           const std::vector<std::shared_ptr<const Results>>& runs) {
  if (request.empty()) return {};
  if (!request.around.empty() && (!request.from.empty() || !request.to.empty())) {
    return fail("--around cannot be combined with --from or --to");
  }
  double end = 0;
  const Window* first_deploy = nullptr;
  const Window* first_chaos = nullptr;
  for (const auto& r : runs) {
    if (!r->timeline_missing.empty()) continue;
    end = std::max(end, r->ended_at);
    for (const Window& w : r->windows) {
      const Window*& first = w.deploy ? first_deploy : first_chaos;
      if (!first || w.start < first->start) first = &w;
    }
  }
  const std::string run_end = format_seconds(end);
  auto within_run = [&](double t0, double t1) {
    return WindowChoice{TimeWindow{std::max(0.0, t0), std::min(end, t1)}, {}};
  };
  if (!request.around.empty()) {
    const std::string& a = request.around;
    if (a == "deploy" || a == "chaos") {
      const Window* w = a == "deploy" ? first_deploy : first_chaos;
      if (!w) {
        return fail("--around " + a + ": the run has no " +
                    (a == "deploy" ? "rolling restart" : "chaos event (oom_kill, signal, ...)"));
      }
      const double margin = std::max(kAroundMargin, (w->end - w->start) / 4);
      return within_run(w->start - margin, w->end + margin);
    }
    const std::optional<double> t = seconds_of(a);
    if (!t) return fail("--around: expected deploy, chaos or a time like 3m, got \"" + a + "\"");
    if (*t > end) return fail("--around " + a + " is after the run's end (" + run_end + ")");
    return within_run(*t - kAroundHalfWidth, *t + kAroundHalfWidth);
  }
  double t0 = 0, t1 = end;
  if (!request.from.empty()) {
    const std::optional<double> t = seconds_of(request.from);
    if (!t) return fail(expected_duration("--from", request.from));
    t0 = *t;
  }
  if (!request.to.empty()) {
    const std::optional<double> t = seconds_of(request.to);
    if (!t) return fail(expected_duration("--to", request.to));
    t1 = *t;
  }
  if (t0 >= end) {
    return fail("--from " + format_seconds(t0) + " is not before the run's end (" + run_end + ")");
  }
  if (t1 <= t0) {
    return fail("--to " + format_seconds(t1) + " is not after --from " + format_seconds(t0));
  }
  return within_run(t0, t1);
}

}  // namespace drainsim::viewer
