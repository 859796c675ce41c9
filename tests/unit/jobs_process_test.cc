// Process on its own: the ownership rule that a Process may be destroyed from its `closed`
// callback, and capture bounds.

#include "jobs/process.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

// Regression: on_handle_closed called events_.closed in place; the owner destroys the Process
// there, so the callback went on running out of freed memory (ASan: heap-use-after-free in the
// closure below, which reads its captures after the reset).
TEST(JobsProcess, OwnerMayDestroyTheProcessInsideClosed) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  JobInfo info;
  info.spec = shell("echo hi");
  std::unique_ptr<Process> process;
  auto closed_count = std::make_shared<int>(0);
  bool finished = false;
  Process::Events events;
  events.finished = [&] {
    finished = true;
    process->close();
  };
  events.closed = [&process, closed_count] {
    process.reset();
    ++*closed_count;  // touches the closure after the Process (its owner) is gone
  };
  process = std::make_unique<Process>(&loop, info, 200, events);
  ASSERT_TRUE(process->start({"PATH=/usr/bin:/bin"}));
  ASSERT_TRUE(run_until(&loop, [&] { return *closed_count == 1; }));
  EXPECT_TRUE(finished);
  EXPECT_EQ(process, nullptr);
  EXPECT_EQ(info.status, Status::Succeeded);
  EXPECT_EQ(info.out.text(), "hi\n");
  uv_run(&loop, UV_RUN_DEFAULT);
  EXPECT_EQ(uv_loop_close(&loop), 0);
}

TEST(JobsProcess, SpawnFailureIsReportedFromTheLoopAndCloses) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  JobInfo info;
  info.spec.argv = {"/nonexistent/binary"};
  std::unique_ptr<Process> process;
  bool finished = false;
  bool closed = false;
  Process::Events events;
  events.finished = [&] {
    finished = true;
    process->close();
  };
  events.closed = [&] {
    process.reset();
    closed = true;
  };
  process = std::make_unique<Process>(&loop, info, 200, events);
  EXPECT_FALSE(process->start({}));
  EXPECT_FALSE(finished);
  EXPECT_FALSE(process->terminate(Status::Canceled, 10)) << "nothing was started";
  ASSERT_TRUE(run_until(&loop, [&] { return closed; }));
  EXPECT_EQ(info.status, Status::Failed);
  EXPECT_FALSE(info.error.empty());
  uv_run(&loop, UV_RUN_DEFAULT);
  EXPECT_EQ(uv_loop_close(&loop), 0);
}

TEST(JobsCapture, KeepsHeadAndTailWithExactCounts) {
  Capture capture;
  std::string all;
  for (int i = 0; i < 200000; ++i) {
    std::string line = "line " + std::to_string(i) + "\n";
    capture.append(line);
    all += line;
  }
  EXPECT_EQ(capture.bytes(), all.size());
  EXPECT_EQ(capture.lines(), 200000u);
  EXPECT_EQ(capture.head(), all.substr(0, Capture::kHeadBytes));
  EXPECT_EQ(capture.tail(), all.substr(all.size() - Capture::kTailBytes));
  EXPECT_EQ(capture.omitted_bytes(), all.size() - Capture::kHeadBytes - Capture::kTailBytes);
  // One write bigger than the ring.
  capture.append(std::string(3 * Capture::kTailBytes, 'z') + "end");
  EXPECT_EQ(capture.tail(), std::string(Capture::kTailBytes - 3, 'z') + "end");
  capture.release();
  EXPECT_EQ(capture.lines(), 200000u);
  EXPECT_TRUE(capture.tail().empty());
}

TEST(JobsCapture, SmallOutputIsKeptWhole) {
  Capture capture;
  capture.append("abc");
  capture.append(std::string(Capture::kHeadBytes, 'x'));
  capture.append("tail");
  EXPECT_EQ(capture.omitted_bytes(), 0u);
  EXPECT_EQ(capture.text(), "abc" + std::string(Capture::kHeadBytes, 'x') + "tail");
  EXPECT_FALSE(capture.ends_with_newline());
}

}  // namespace
}  // namespace toolhost::jobs::testing
