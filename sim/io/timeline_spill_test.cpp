#include "io/timeline_spill.h"

#include <string>

#include <gtest/gtest.h>

#include "io/results.h"

namespace drainsim {
namespace {

std::string written(const TimelineSpill& spill) {
  std::string text;
  spill.write([&](std::string_view piece) { text += piece; });
  return text;
}

// A few records of every table, worked by hand: the seconds as nlohmann writes doubles
// ("2.0", "1e-06", "0.0"), a worker that never was (kNoWorker), free text with a quote.
void add_records(TimelineSink& t) {
  t.add(AttemptRecord{7, 2, 3, 12, 0, 1'500'000, 2'000'000, Outcome::kCompleted, true});
  t.add(AttemptRecord{8, 1, -1, kNoWorker, -1, 1, 3'654'032'152, Outcome::kKilled, false});
  t.add(PodStateRecord{0, 3, PodState::kDraining});
  t.add(SignalRecord{250'000, 3, Signal::kTerm, false, "say \"stop\""});
  t.add(RemainingRecord{10'000'000, 3, 12, 4});
  t.add(SeriesPoint{250'000, 3, 0, 10});
  t.add(HeartbeatRecord{5'000'000, 3, 12, Directive::kQuiet});
  t.add(ReportRecord{2'000'000, 3, 12, 7, 2, ReportKind::kFail, ErrorKind::kShutdown, false});
  t.add(ReportRecord{2'000'001, 3, 12, 8, 1, ReportKind::kAck, ErrorKind::kShutdown, true});
}

TEST(TimelineSpill, WritesEachRecordAsTheDocumentsRow) {
  TimelineSpill spill;
  add_records(spill);
  EXPECT_EQ(spill.rows(), 9u);
  EXPECT_EQ(
      written(spill),
      R"({"attempts":{"columns":["job","attempt","pod","worker","slot","start_s","end_s","outcome"],)"
      R"("rows":[[7,2,3,12,0,1.5,2.0,"duplicate"],[8,1,-1,4294967295,-1,1e-06,3654.032152,"killed"]]},)"
      R"("drain_remaining":{"columns":["t_s","pod","worker","remaining"],"rows":[[10.0,3,12,4]]},)"
      R"("heartbeats":{"columns":["t_s","pod","worker","state"],"rows":[[5.0,3,12,"quiet"]]},)"
      R"("pod_states":{"columns":["t_s","pod","state"],"rows":[[0.0,3,"draining"]]},)"
      R"("reports":{"columns":["t_s","pod","worker","job","attempt","kind","error","accepted"],)"
      R"("rows":[[2.0,3,12,7,2,"fail","ShutdownError",false],[2.000001,3,12,8,1,"ack","",true]]},)"
      R"("series":{"columns":["t_s","queued","scheduled","in_flight"],"rows":[[0.25,3,0,10]]},)"
      R"("signals":{"columns":["t_s","pod","signal","delivered","source"],)"
      R"("rows":[[0.25,3,"SIGTERM",false,"say \"stop\""]]}})");
}

TEST(TimelineSpill, WritesTheBytesOfTheRecordsInMemoryDumped) {
  TimelineSpill spill;
  Timeline memory;
  add_records(spill);
  add_records(memory);
  EXPECT_EQ(written(spill), timeline_json(memory).dump());
  EXPECT_EQ(spill.json(), timeline_json(memory));
}

TEST(TimelineSpill, AnEmptyTimelineHasEveryTableWithNoRows) {
  const TimelineSpill spill;
  const nlohmann::json t = spill.json();
  EXPECT_EQ(t.size(), 7u);
  for (const auto& [name, table] : t.items()) EXPECT_TRUE(table["rows"].empty()) << name;
  EXPECT_EQ(written(spill), timeline_json(Timeline()).dump());
}

TEST(TimelineSpill, ManyRowsThroughSmallBuffersReadBackInOrder) {
  // 20,000 series points and 20,000 attempts through 512-byte buffers: the files take
  // most, the rows cross the pieces' edges. Times step by 1 ms + 1 µs, so that the seconds'
  // cache (1,024 entries) sees new times, repeated ones and ones that share its slots.
  TimelineSpill spill(512);
  Timeline memory;
  for (int i = 0; i < 20'000; ++i) {
    const Time at = Time{i} * 1'001;
    const SeriesPoint p{at, i % 7, i % 3, i};
    const AttemptRecord a{static_cast<JobId>(i),
                          1,
                          i % 100,
                          static_cast<WorkerId>(i % 100),
                          0,
                          at - (i % 5) * 1'001,
                          at + 1'024 * 1'001,
                          Outcome::kCompleted,
                          false};
    spill.add(p);
    memory.add(p);
    spill.add(a);
    memory.add(a);
  }
  EXPECT_GT(spill.bytes(), 20'000u * 40);
  EXPECT_EQ(written(spill), timeline_json(memory).dump());
}

}  // namespace
}  // namespace drainsim
