// Jobs whose function runs elsewhere and reports back (Lua tools in Neovim): the same events,
// timeout and cancel as any job; a `done` too early or too late breaks nothing.
#include <functional>

#include "jobs/task.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsAsync = EngineTest;

JobSpec async_spec(AsyncFunction function, uint64_t timeout_ms = 0) {
  JobSpec spec;
  spec.async = std::move(function);
  spec.timeout_ms = timeout_ms;
  spec.tool = "shout";
  return spec;
}

// A job's `finished`, watched without running the loop (the tests decide when).
struct Finished {
  JobInfo seen;
  bool done = false;
  JobEvents events() {
    JobEvents events;
    events.finished = [this](const JobInfo& job) {
      seen = job;
      done = true;
    };
    return events;
  }
};

TEST_F(JobsAsync, DoneLaterSucceedsWithItsOutput) {
  Engine& engine = make();
  TaskDone later;
  Finished finished;
  engine.submit(async_spec([&](TaskDone d) { later = std::move(d); }), finished.events());
  ASSERT_TRUE(later);  // started at once: a slot was free
  EXPECT_FALSE(finished.done);
  later(TaskOutcome{0, "HELLO\n", ""});
  ASSERT_TRUE(run_until(&loop_, [&] { return finished.done; }));
  EXPECT_EQ(finished.seen.status, Status::Succeeded);
  EXPECT_EQ(finished.seen.out.text(), "HELLO\n");
  EXPECT_FALSE(finished.seen.exit_code);
}

TEST_F(JobsAsync, DoneInsideSubmitFinishesFromTheLoop) {
  Engine& engine = make();
  Finished finished;
  engine.submit(async_spec([](TaskDone d) {
                  d(TaskOutcome{1, "", "no such buffer"});
                }),
                finished.events());
  EXPECT_FALSE(finished.done);  // never inside submit()
  ASSERT_TRUE(run_until(&loop_, [&] { return finished.done; }));
  EXPECT_EQ(finished.seen.status, Status::Failed);
  EXPECT_EQ(finished.seen.error, "no such buffer");
}

TEST_F(JobsAsync, DoneThatNeverComesTimesOutAndALateOneIsDropped) {
  Engine& engine = make();
  TaskDone late;
  JobInfo info = run(async_spec([&](TaskDone d) { late = std::move(d); }, 50));
  EXPECT_EQ(info.status, Status::TimedOut);
  ASSERT_TRUE(late);
  late(TaskOutcome{0, "too late", ""});  // the Task is gone: nothing happens
  const JobInfo* job = engine.get(info.id);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->status, Status::TimedOut);
}

TEST_F(JobsAsync, CancelEndsItAtOnce) {
  Engine& engine = make();
  Finished finished;
  std::string id = engine.submit(async_spec([](TaskDone) {}), finished.events());
  EXPECT_TRUE(engine.cancel(id));
  ASSERT_TRUE(run_until(&loop_, [&] { return finished.done; }));
  EXPECT_EQ(finished.seen.status, Status::Canceled);
}

TEST_F(JobsAsync, ThreadpoolWorkReportsOnTheLoop) {
  TaskOutcome got;
  bool done = false;
  run_on_threadpool(
      &loop_,
      [] {
        return TaskOutcome{0, "disk", ""};
      },
      [&](TaskOutcome outcome) {
        got = std::move(outcome);
        done = true;
      });
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_EQ(got.out, "disk");
}

}  // namespace
}  // namespace toolhost::jobs::testing
