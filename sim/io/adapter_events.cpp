#include "io/adapter_events.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/parse.h"
#include "io/json_reader.h"

namespace drainsim {

namespace {

using nlohmann::json;

struct Open {
  AttemptRecord record;
  pid_t child = 0;  // the pool child that runs it, when the adapter names one
};

}  // namespace

AdapterReport read_adapter_events(std::istream& in, const std::string& where, double origin,
                                  const std::map<pid_t, ProcessEnding>& endings) {
  const auto time_of = [origin](double unix_s) {
    return static_cast<Time>(std::llround((unix_s - origin) * 1e6));
  };
  AdapterReport out;
  // Open attempts by (pid, run, job, attempt).
  std::map<std::tuple<pid_t, std::int64_t, JobId, int>, Open> open;
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    const auto bad = [&](const std::string& what) {
      return InputError(fmt::format("{}: line {}: {}", where, line_no, what));
    };
    const json e = json::parse(line, nullptr, false);
    if (e.is_discarded() || !e.is_object()) throw bad("expected one JSON object");
    const auto number = [&](const char* key) {
      if (!e.contains(key) || !e[key].is_number()) {
        throw bad(fmt::format("\"{}\": expected a number", key));
      }
      return e[key];
    };
    const auto text = [&](const char* key) {
      if (!e.contains(key) || !e[key].is_string()) {
        throw bad(fmt::format("\"{}\": expected a string", key));
      }
      return e[key].get<std::string>();
    };
    const Time at = time_of(number("t").get<double>());
    const pid_t pid = number("pid").get<pid_t>();
    const std::string worker = text("worker");
    const std::optional<int> pod =
        worker.starts_with("pod-") ? parse_number<int>(worker.substr(4)) : std::nullopt;
    if (!pod || *pod < 0) throw bad("\"worker\": expected \"pod-N\", got \"" + worker + "\"");
    const std::string event = text("event");
    if (event == "ready" || event == "quiet" || event == "shutdown") {
      out.lifecycle.push_back({at, *pod, pid, event});
      continue;
    }
    if (event == "available") {
      out.available.push_back({at, number("job").get<JobId>()});
      continue;
    }
    if (event == "discarded") {
      out.discarded.insert(number("job").get<JobId>());
      continue;
    }
    if (event != "start" && event != "end") {
      throw bad(
          "\"event\": expected ready, quiet, shutdown, start, end, available or discarded, "
          "got \"" +
          event + "\"");
    }
    const JobId job = number("job").get<JobId>();
    const int attempt = number("attempt").get<int>();
    // "run" (optional): tells apart two runs of one attempt at once in one process (Celery:
    // a restored message its own worker fetched again, in another pool child; BullMQ: a
    // stalled job its own worker fetched again).
    const std::int64_t run = e.contains("run") ? number("run").get<std::int64_t>() : 0;
    const auto key = std::make_tuple(pid, run, job, attempt);
    if (event == "start") {
      AttemptRecord r;
      r.job = job;
      r.attempt = attempt;
      r.pod = *pod;
      r.worker = static_cast<WorkerId>(pid);
      r.start = at;
      const pid_t child = e.contains("child") ? number("child").get<pid_t>() : 0;
      if (!open.emplace(key, Open{r, child}).second) {
        throw bad(fmt::format("job {} attempt {} started twice in process {}{}", job, attempt, pid,
                              run ? fmt::format(" (run {})", run) : ""));
      }
      continue;
    }
    const auto it = open.find(key);
    if (it == open.end()) {
      throw bad(fmt::format("job {} attempt {} ends in process {}{} without a start", job, attempt,
                            pid, run ? fmt::format(" (run {})", run) : ""));
    }
    const std::string outcome = text("outcome");
    AttemptRecord r = it->second.record;
    open.erase(it);
    r.end = at;
    if (outcome == "completed") {
      r.outcome = Outcome::kCompleted;
    } else if (outcome == "failed") {
      r.outcome = Outcome::kFailed;
    } else if (outcome == "interrupted") {
      r.outcome = Outcome::kInterrupted;
    } else {
      throw bad("\"outcome\": expected completed, failed or interrupted, got \"" + outcome + "\"");
    }
    out.attempts.push_back(r);
  }
  // Attempts left open: cut short by their pool child's end or their process's, or still
  // running.
  for (auto& [key, o] : open) {
    AttemptRecord& r = o.record;
    auto ending = o.child ? endings.find(o.child) : endings.end();
    if (ending == endings.end()) ending = endings.find(std::get<0>(key));
    if (ending == endings.end()) {
      out.in_flight.push_back(r);
      continue;
    }
    r.end = std::max(r.start, time_of(ending->second.at));
    r.outcome = ending->second.signalled ? Outcome::kKilled : Outcome::kAbandoned;
    out.attempts.push_back(r);
  }
  std::sort(out.attempts.begin(), out.attempts.end(),
            [](const AttemptRecord& a, const AttemptRecord& b) {
              return std::tie(a.end, a.start, a.job, a.attempt) <
                     std::tie(b.end, b.start, b.job, b.attempt);
            });
  // A completed attempt of a job that had completed before is a duplicate execution.
  std::map<JobId, bool> completed;
  for (AttemptRecord& r : out.attempts) {
    if (r.outcome != Outcome::kCompleted) continue;
    r.duplicate = completed[r.job];
    completed[r.job] = true;
  }
  return out;
}

}  // namespace drainsim
