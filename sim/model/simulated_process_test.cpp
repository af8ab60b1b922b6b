// SimulatedProcess runs job bodies in virtual time. Hand-worked: one process, concurrency 2,
// jobs of 20 s enqueued at 0 s and fetched at once; a cancel at 5 s.
#include "model/simulated_process.h"

#include <gtest/gtest.h>

#include "engine/virtual_runtime.h"

namespace drainsim {
namespace {

struct Observer final : ProcessObserver {
  void on_worker_state(int, WorkerState) override {}
  void on_process_end(int, ProcessEnd how, int code) override {
    ended = true;
    end = how;
    exit_code = code;
  }
  bool ended = false;
  ProcessEnd end = ProcessEnd::kExited;
  int exit_code = -1;
};

class WorkerProcessTest : public ::testing::Test {
 protected:
  WorkerProcessTest() {
    worker.concurrency = 2;
    backend.retry.jitter = false;
  }
  // Starts the process with one job per spec, all fetched at t=0.
  void start(std::initializer_list<JobSpec> jobs) {
    for (const JobSpec& spec : jobs) queue_backend().enqueue(0, spec);
    process =
        std::make_unique<SimulatedProcess>(rt, *backend_, recorder, observer, worker, workload, 0);
    process->start();
  }
  Backend& queue_backend() {
    if (!backend_) {
      backend_ = std::make_unique<Backend>(rt, backend, BackendMechanisms{}, recorder);
      backend_->queue("default");
    }
    return *backend_;
  }
  const AttemptRecord& attempt(JobId job) const {
    for (const AttemptRecord& a : recorder.attempts()) {
      if (a.job == job) return a;
    }
    throw std::runtime_error("no attempt");
  }

  VirtualRuntime rt{1};
  Recorder recorder{true};
  BackendConfig backend;
  WorkerConfig worker;
  WorkloadConfig workload;
  Observer observer;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<SimulatedProcess> process;
};

constexpr Duration s(int n) { return n * kSecond; }

TEST_F(WorkerProcessTest, CooperativeJobStopsAfterItsCancelLatencyUncooperativeRunsOn) {
  start({JobSpec{s(20), s(2), true}, JobSpec{s(20), s(2), false}});
  rt.run_until(s(5));
  process->cancel_job(0);  // job 0, cooperative: stops at 5 + 2 = 7 s
  process->cancel_job(1);  // job 1, uncooperative: runs to 20 s
  rt.run_until(s(25));
  EXPECT_EQ(attempt(0).outcome, Outcome::kInterrupted);
  EXPECT_EQ(attempt(0).end, s(7));
  EXPECT_EQ(attempt(1).outcome, Outcome::kCompleted);
  EXPECT_EQ(attempt(1).end, s(20));
  // The interrupted job was FAILed with ShutdownError: retried after 1 s (no jitter) and
  // run again from scratch by the same worker, whose slot 0 was free: 8 s to 28 s.
  rt.run_until(s(30));
  EXPECT_EQ(recorder.totals().shutdown_retries, 1);
  EXPECT_EQ(recorder.totals().wasted_work, s(7));
  EXPECT_EQ(recorder.attempts().back().start, s(8));
  EXPECT_EQ(recorder.attempts().back().end, s(28));
}

TEST_F(WorkerProcessTest, JobThatFinishesBeforeNoticingTheCancelCompletes) {
  start({JobSpec{s(20), s(10), true}});
  rt.run_until(s(15));
  process->cancel_job(0);  // would stop at 25 s, but its work is done at 20 s
  rt.run_until(s(21));
  EXPECT_EQ(attempt(0).outcome, Outcome::kCompleted);
  EXPECT_EQ(attempt(0).end, s(20));
}

TEST_F(WorkerProcessTest, CancelledJobWithCheckpointingKeepsItsProgress) {
  workload.checkpointing = true;
  start({JobSpec{s(20), 0, true}});
  rt.run_until(s(5));
  process->cancel_job(0);  // stops at once, saving 5 s of work
  rt.run_until(s(30));
  // Retried at 6 s with 15 s left: done at 21 s; nothing was wasted.
  EXPECT_EQ(recorder.attempts().back().start, s(6));
  EXPECT_EQ(recorder.attempts().back().end, s(21));
  EXPECT_EQ(recorder.totals().wasted_work, 0);
}

TEST_F(WorkerProcessTest, KillLosesWorkSinceTheLastPeriodicCheckpoint) {
  workload.checkpointing = true;
  workload.checkpoint_interval = s(4);
  start({JobSpec{s(20), 0, true}});
  rt.run_until(s(10));
  process->kill();  // saved at 4 s and 8 s: 2 s of work lost
  EXPECT_EQ(attempt(0).outcome, Outcome::kKilled);
  EXPECT_EQ(recorder.totals().wasted_work, s(2));
  EXPECT_TRUE(observer.ended);
  EXPECT_EQ(observer.end, ProcessEnd::kKilled);
  EXPECT_EQ(observer.exit_code, 137);
}

}  // namespace
}  // namespace drainsim
