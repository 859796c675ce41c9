// A job's log while the host holds its first output (Engine::hold_history, P8): a call that
// ends having written little gets no log file, and its output is still read back (now, and
// after a restart, from its history line); a job still running gets its file at the next
// release_held(); a large output gets its file at once.
#include <filesystem>
#include <string>

#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

// A call of an MCP server's tool whose answer comes when the test says.
struct Call {
  OutputSink output;
  TaskDone done;
  JobSpec spec() {
    JobSpec spec;
    spec.tool = "everything__echo";
    spec.stream = [this](OutputSink o, TaskDone d) -> StopHook {
      output = std::move(o);
      done = std::move(d);
      return nullptr;
    };
    return spec;
  }
};

struct Ended {
  bool done = false;
  JobEvents events() {
    JobEvents events;
    events.finished = [this](const JobInfo&) { done = true; };
    return events;
  }
};

// An engine with a history in dir_, holding its history lines (and first outputs) or not, and
// one call submitted: its id.
class JobsInlineLog : public EngineTest {
 protected:
  std::string submit_call(bool hold) {
    Engine& engine = make(persistent(dir_));
    engine.hold_history(hold);
    return engine.submit(call_.spec(), ended_.events());
  }

  TempDir dir_;
  Call call_;
  Ended ended_;
};

TEST_F(JobsInlineLog, ACallEndingWithLittleOutputHasNoLogFileAndItsOutputIsReadBack) {
  const std::string id = submit_call(true);
  Engine& engine = *engine_;
  call_.done(TaskOutcome{0, "Echo: hi\n", ""});
  ASSERT_TRUE(ended_.done);
  engine.release_held();
  const JobInfo* job = engine.get(id);
  ASSERT_NE(job, nullptr);
  EXPECT_FALSE(std::filesystem::exists(job->log_path)) << "no inode for 9 bytes";
  EXPECT_EQ(job->log_bytes, 9u);
  OutputChunk chunk = engine.output(id, 0);
  EXPECT_EQ(chunk.data, "Echo: hi\n");
  EXPECT_TRUE(chunk.eof);
  EXPECT_EQ(engine.output(id, 6).data, "hi\n") << "offsets count bytes of the log";
  std::vector<nlohmann::json> lines = history_lines(dir_);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["output"], "Echo: hi\n");
  stop();

  Engine& again = make(persistent(dir_));
  chunk = again.output(id, 0);
  EXPECT_EQ(chunk.data, "Echo: hi\n") << "a restart reads it from history";
  EXPECT_TRUE(chunk.eof);
}

TEST_F(JobsInlineLog, ARunningJobsHeldOutputIsReadableThenWrittenToItsFile) {
  const std::string id = submit_call(true);
  Engine& engine = *engine_;
  call_.output("progress 1/2\n");
  const std::string path = engine.get(id)->log_path;
  EXPECT_FALSE(std::filesystem::exists(path));
  OutputChunk chunk = engine.output(id, 0);
  EXPECT_EQ(chunk.data, "progress 1/2\n") << ":ToolOutput follows it before the file exists";
  EXPECT_FALSE(chunk.eof);
  engine.release_held();
  EXPECT_EQ(read_file(path), "progress 1/2\n") << "on disk within the loop turn";
  call_.done(TaskOutcome{0, "Echo: hi\n", ""});
  ASSERT_TRUE(ended_.done);
  engine.release_held();
  EXPECT_EQ(read_file(path), "progress 1/2\nEcho: hi\n");
  chunk = engine.output(id, 0);
  EXPECT_EQ(chunk.data, "progress 1/2\nEcho: hi\n");
  EXPECT_TRUE(chunk.eof);
  EXPECT_FALSE(history_lines(dir_).back().contains("output")) << "its log is the file";
}

TEST_F(JobsInlineLog, OutputLargerThanTheInlineCapGetsItsFileAtOnce) {
  const std::string id = submit_call(true);
  Engine& engine = *engine_;
  const std::string big(Engine::kInlineLogMax + 1, 'x');
  call_.done(TaskOutcome{0, big, ""});
  ASSERT_TRUE(ended_.done);
  EXPECT_EQ(read_file(engine.get(id)->log_path), big);
  EXPECT_EQ(engine.output(id, 0).data, big);
}

TEST_F(JobsInlineLog, WithoutHoldingEveryOutputGoesToItsFile) {
  const std::string id = submit_call(false);
  Engine& engine = *engine_;
  call_.done(TaskOutcome{0, "Echo: hi\n", ""});
  ASSERT_TRUE(ended_.done);
  EXPECT_EQ(read_file(engine.get(id)->log_path), "Echo: hi\n");
}

}  // namespace
}  // namespace toolhost::jobs::testing
