// Jobs that are functions on libuv's threadpool (the file tools): the same ids, events, output
// capture, logs, history, queue, timeouts and cancel as a process job.
#include <future>
#include <memory>

#include "jobs/task.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsTask = EngineTest;

JobSpec task_spec(TaskFunction function, uint64_t timeout_ms = 0) {
  JobSpec spec;
  spec.task = std::move(function);
  spec.timeout_ms = timeout_ms;
  spec.tool = "read_file";
  return spec;
}

// A task that waits until the test lets it go, so that it is surely still running.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  TaskFunction task(TaskOutcome outcome) {
    auto wait = opened;
    return [wait, outcome] {
      wait.wait();
      return outcome;
    };
  }
};

TEST_F(JobsTask, SucceedsWithItsTextAsStdoutInTheLogAndHistory) {
  TempDir state;
  TempDir cache;
  EngineOptions options;
  options.state_dir = state.path();
  options.cache_dir = cache.path();
  Engine& engine = make(options);
  std::string streamed;
  bool started = false;
  JobInfo seen;
  bool done = false;
  JobEvents events;
  events.started = [&](const JobInfo& info) {
    started = true;
    EXPECT_EQ(info.status, Status::Running);
  };
  events.output = [&](const JobInfo&, Stream stream, std::string_view data) {
    EXPECT_EQ(stream, Stream::Stdout);
    streamed += data;
  };
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  std::string id = engine.submit(task_spec([] {
                                   return TaskOutcome{0, "     1\thello\n", ""};
                                 }),
                                 events);
  EXPECT_EQ(id, "th-1");
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_TRUE(started);
  EXPECT_EQ(seen.status, Status::Succeeded);
  EXPECT_FALSE(seen.exit_code);  // no process ran
  EXPECT_EQ(seen.pid, 0);
  EXPECT_EQ(seen.pgid, 0);
  EXPECT_EQ(seen.out.text(), "     1\thello\n");
  EXPECT_EQ(streamed, "     1\thello\n");
  OutputChunk log = engine.output(id, 0);
  EXPECT_EQ(log.data, "     1\thello\n");
  EXPECT_TRUE(log.eof);
  stop();
  // A new engine reads the job back from history.
  Engine& again = make(options);
  const JobInfo* restored = again.get(id);
  ASSERT_NE(restored, nullptr);
  EXPECT_EQ(restored->status, Status::Succeeded);
  EXPECT_EQ(restored->spec.tool, "read_file");
}

TEST_F(JobsTask, FailureCarriesItsMessageOnStderr) {
  make();
  JobInfo job = run(task_spec([] { return TaskOutcome{1, "", "`a.c` does not exist"}; }));
  EXPECT_EQ(job.status, Status::Failed);
  EXPECT_EQ(job.err.text(), "`a.c` does not exist");
  EXPECT_EQ(job.error, "`a.c` does not exist");
  EXPECT_FALSE(job.exit_code);
}

TEST_F(JobsTask, AnExceptionIsAFailureNotACrash) {
  make();
  JobInfo job = run(task_spec([]() -> TaskOutcome { throw std::runtime_error("disk on fire"); }));
  EXPECT_EQ(job.status, Status::Failed);
  EXPECT_EQ(job.err.text(), "disk on fire");
}

TEST_F(JobsTask, TimeoutEndsTheJobAtOnceAndDropsTheLateResult) {
  Engine& engine = make();
  Gate gate;
  JobInfo seen;
  bool done = false;
  JobEvents events;
  events.output = [&](const JobInfo&, Stream, std::string_view) { ADD_FAILURE() << "late output"; };
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  engine.submit(task_spec(gate.task({0, "too late", ""}), /*timeout_ms=*/30), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_EQ(seen.status, Status::TimedOut);
  EXPECT_FALSE(seen.exit_code);
  gate.open.set_value();  // the function ends now; shutdown waits for it
  stop();
}

TEST_F(JobsTask, CancelWhileRunning) {
  Engine& engine = make();
  Gate gate;
  JobInfo seen;
  bool done = false;
  JobEvents events;
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  std::string id = engine.submit(task_spec(gate.task({0, "x", ""})), events);
  ASSERT_EQ(engine.get(id)->status, Status::Running);
  EXPECT_TRUE(engine.cancel(id));
  EXPECT_TRUE(done);  // cancel() reports it at once
  EXPECT_EQ(seen.status, Status::Canceled);
  EXPECT_FALSE(engine.cancel(id));
  gate.open.set_value();
  stop();
}

TEST_F(JobsTask, QueueHoldsTasksLikeProcesses) {
  EngineOptions options;
  options.max_concurrent = 1;
  Engine& engine = make(options);
  Gate gate;
  int finished = 0;
  JobEvents events;
  events.finished = [&](const JobInfo&) { ++finished; };
  std::string first = engine.submit(task_spec(gate.task({0, "1", ""})), events);
  std::string second = engine.submit(task_spec([] { return TaskOutcome{0, "2", ""}; }), events);
  EXPECT_EQ(engine.get(second)->status, Status::Queued);
  EXPECT_EQ(engine.queued(), 1u);
  gate.open.set_value();
  ASSERT_TRUE(run_until(&loop_, [&] { return finished == 2; }));
  EXPECT_EQ(engine.get(first)->status, Status::Succeeded);
  EXPECT_EQ(engine.get(second)->status, Status::Succeeded);
}

TEST_F(JobsTask, ShutdownWaitsForARunningFunction) {
  Engine& engine = make();
  Gate gate;
  JobEvents events;
  engine.submit(task_spec(gate.task({0, "x", ""})), events);
  bool done = false;
  engine.shutdown(50, [&] { done = true; });
  // The function is still running: whatever is ready on the loop, shutdown is not done.
  for (int i = 0; i < 10; ++i) uv_run(&loop_, UV_RUN_NOWAIT);
  EXPECT_FALSE(done);
  gate.open.set_value();
  EXPECT_TRUE(run_until(&loop_, [&] { return done; }));
  engine_.reset();
}

}  // namespace
}  // namespace toolhost::jobs::testing
