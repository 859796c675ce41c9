// Jobs that are a streaming function on the loop (a call of an MCP server's tool): output lines
// as they come, a result at the end, and a stop hook that cancel, timeout and shutdown run
// after the job has ended at once.
#include <functional>
#include <string>
#include <vector>

#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsStream = EngineTest;

// What the function was given, and what its stop hook saw.
struct Remote {
  OutputSink output;
  TaskDone done;
  std::vector<Status> stops;
  StreamFunction function() {
    return [this](OutputSink o, TaskDone d) -> StopHook {
      output = std::move(o);
      done = std::move(d);
      return [this](Status reason) { stops.push_back(reason); };
    };
  }
};

JobSpec stream_spec(StreamFunction function, uint64_t timeout_ms = 0) {
  JobSpec spec;
  spec.stream = std::move(function);
  spec.timeout_ms = timeout_ms;
  spec.tool = "everything__echo";
  return spec;
}

struct Watch {
  JobInfo seen;
  bool done = false;
  std::string streamed;  // what the output events carried on stderr (the result: stdout)
  std::string result;
  int started = 0;
  JobEvents events() {
    JobEvents events;
    events.started = [this](const JobInfo&) { ++started; };
    events.output = [this](const JobInfo&, Stream stream, std::string_view data) {
      (stream == Stream::Stderr ? streamed : result).append(data);
    };
    events.finished = [this](const JobInfo& job) {
      seen = job;
      done = true;
    };
    return events;
  }
};

TEST_F(JobsStream, OutputStreamsBeforeTheResultAndTheResultIsTheOutput) {
  TempDir cache;
  EngineOptions options;
  options.cache_dir = cache.path();
  Engine& engine = make(options);
  Remote remote;
  Watch watch;
  std::string id = engine.submit(stream_spec(remote.function()), watch.events());
  ASSERT_TRUE(remote.output);
  EXPECT_EQ(watch.started, 1);
  remote.output("progress 1/2\n");
  EXPECT_EQ(watch.streamed, "progress 1/2\n");
  EXPECT_FALSE(watch.done);
  remote.output("progress 2/2\n");
  remote.done(TaskOutcome{0, "Echo: hi\n", ""});
  ASSERT_TRUE(run_until(&loop_, [&] { return watch.done; }));
  EXPECT_EQ(watch.seen.status, Status::Succeeded);
  EXPECT_EQ(watch.seen.out.text(), "Echo: hi\n");
  EXPECT_EQ(watch.result, "Echo: hi\n");
  EXPECT_EQ(watch.seen.err.text(), "progress 1/2\nprogress 2/2\n") << "progress is not the result";
  EXPECT_TRUE(remote.stops.empty()) << "a call that ended by itself is not stopped";
  // :ToolOutput reads the log: the progress lines, then the result.
  OutputChunk chunk = engine.output(id, 0);
  EXPECT_EQ(chunk.data, "progress 1/2\nprogress 2/2\nEcho: hi\n");
}

TEST_F(JobsStream, CancelEndsTheJobAtOnceThenStopsTheFunction) {
  Engine& engine = make();
  Remote remote;
  Watch watch;
  std::string id = engine.submit(stream_spec(remote.function()), watch.events());
  EXPECT_TRUE(engine.cancel(id));
  EXPECT_TRUE(watch.done) << "cancel ends a running function's job inside cancel()";
  EXPECT_EQ(watch.seen.status, Status::Canceled);
  EXPECT_EQ(remote.stops, std::vector<Status>{Status::Canceled});
  // What the server says afterwards is dropped.
  remote.output("late progress\n");
  remote.done(TaskOutcome{0, "late result", ""});
  EXPECT_EQ(watch.streamed, "");
  EXPECT_EQ(engine.get(id)->status, Status::Canceled);
}

TEST_F(JobsStream, TimeoutEndsTheJobAndStopsTheFunctionWithTimedOut) {
  make();
  Remote remote;
  JobInfo info = run(stream_spec(remote.function(), 30));
  EXPECT_EQ(info.status, Status::TimedOut);
  EXPECT_EQ(remote.stops, std::vector<Status>{Status::TimedOut});
}

TEST_F(JobsStream, AFailureCarriesItsMessageAsTheJobsError) {
  make();
  JobInfo info = run(stream_spec([](OutputSink, TaskDone done) -> StopHook {
    done(TaskOutcome{1, "", "unknown tool: nope"});  // inside submit(): reported from the loop
    return nullptr;
  }));
  EXPECT_EQ(info.status, Status::Failed);
  EXPECT_EQ(info.error, "unknown tool: nope");
}

TEST_F(JobsStream, OutputInsideSubmitIsKeptAndShownWithTheEnd) {
  make();
  Watch watch;
  engine_->submit(stream_spec([](OutputSink output, TaskDone done) -> StopHook {
                    output("connecting\n");
                    done(TaskOutcome{0, "ok", ""});
                    return nullptr;
                  }),
                  watch.events());
  EXPECT_EQ(watch.streamed, "") << "no event inside submit()";
  ASSERT_TRUE(run_until(&loop_, [&] { return watch.done; }));
  EXPECT_EQ(watch.streamed, "connecting\n");
  EXPECT_EQ(watch.seen.status, Status::Succeeded);
}

TEST_F(JobsStream, OutputInsideSubmitIsShownOnTheLoopsNextTurnWhileTheCallWaits) {
  // "starting the MCP server", "waiting for sign-in": the call may then wait for minutes.
  make();
  Remote remote;
  Watch watch;
  engine_->submit(stream_spec([&](OutputSink output, TaskDone done) -> StopHook {
                    output("waiting for sign-in\n");
                    return remote.function()(std::move(output), std::move(done));
                  }),
                  watch.events());
  EXPECT_EQ(watch.streamed, "") << "no event inside submit()";
  ASSERT_TRUE(run_until(&loop_, [&] { return !watch.streamed.empty(); }));
  EXPECT_EQ(watch.streamed, "waiting for sign-in\n");
  EXPECT_FALSE(watch.done);
  remote.output("signed in\n");
  remote.done(TaskOutcome{0, "ok", ""});
  ASSERT_TRUE(run_until(&loop_, [&] { return watch.done; }));
  EXPECT_EQ(watch.seen.err.text(), "waiting for sign-in\nsigned in\n");
}

TEST_F(JobsStream, AThrowingFunctionFailsWithItsMessage) {
  make();
  JobInfo info = run(stream_spec(
      [](OutputSink, TaskDone) -> StopHook { throw std::runtime_error("no such server"); }));
  EXPECT_EQ(info.status, Status::Failed);
  EXPECT_EQ(info.error, "no such server");
}

TEST_F(JobsStream, ShutdownInterruptsARunningCallAndStopsIt) {
  Engine& engine = make();
  Remote remote;
  Watch watch;
  engine.submit(stream_spec(remote.function()), watch.events());
  stop();
  EXPECT_TRUE(watch.done);
  EXPECT_EQ(watch.seen.status, Status::Interrupted);
  EXPECT_EQ(remote.stops, std::vector<Status>{Status::Interrupted});
}

}  // namespace
}  // namespace toolhost::jobs::testing
