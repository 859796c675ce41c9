// A custom tool's `cmds` (SPEC 7): one job runs them in sequence (jobs::Sequence), each argv
// exec'd as it is, and stops at the first failure; one deadline covers them all.
#include <gtest/gtest.h>

#include <csignal>

#include "test_custom_job.h"

namespace toolhost::tools {
namespace {

using jobs::JobInfo;
using jobs::Status;
using nlohmann::json;
using CustomSequence = testing::CustomJobTest;

TEST_F(CustomSequence, StopsAtTheFirstFailure) {
  make();
  JobInfo info = run_tool(
      {{"cmds", {{"sh", "-c", "echo one"}, {"false"}, {"sh", "-c", "echo three; touch three"}}}},
      json::object());
  EXPECT_EQ(info.status, Status::Failed);
  ASSERT_TRUE(info.exit_code);
  EXPECT_EQ(*info.exit_code, 1);
  EXPECT_EQ(info.out.text(), "one\n");
  EXPECT_FALSE(exists("three"));
}

TEST_F(CustomSequence, AllSucceedingSucceedsWithEveryStepsOutputInTheLog) {
  jobs::testing::TempDir cache;
  jobs::EngineOptions options;
  options.cache_dir = cache.path();
  make(options);
  JobInfo info = run_tool(
      {{"cmds", {{"sh", "-c", "echo one"}, {"sh", "-c", "echo two >&2"}, {"echo", "three"}}}},
      json::object());
  EXPECT_EQ(info.status, Status::Succeeded) << info.error;
  ASSERT_TRUE(info.exit_code);
  EXPECT_EQ(*info.exit_code, 0);
  EXPECT_EQ(info.out.text(), "one\nthree\n");
  EXPECT_EQ(info.err.text(), "two\n");
  EXPECT_EQ(info.out.lines(), 2u);
  EXPECT_EQ(jobs::testing::read_file(info.log_path), "one\ntwo\nthree\n");
}

TEST_F(CustomSequence, StepKilledBySignalEndsItWithTheSignal) {
  make();
  JobInfo info = run_tool({{"cmds", {{"sh", "-c", "echo one; kill -USR1 $$"}, {"touch", "two"}}}},
                          json::object());
  EXPECT_EQ(info.status, Status::Failed);
  EXPECT_FALSE(info.exit_code);  // the first step's exit code does not linger
  ASSERT_TRUE(info.term_signal);
  EXPECT_EQ(*info.term_signal, SIGUSR1);
  EXPECT_FALSE(exists("two"));
}

TEST_F(CustomSequence, StepThatCannotStartFailsTheJob) {
  make();
  JobInfo info = run_tool(
      {{"cmds", {{"echo", "one"}, {"/nonexistent/toolhost-no-such-binary"}, {"touch", "three"}}}},
      json::object());
  EXPECT_EQ(info.status, Status::Failed);
  EXPECT_NE(info.error.find("cannot start"), std::string::npos) << info.error;
  EXPECT_EQ(info.out.text(), "one\n");
  EXPECT_FALSE(exists("three"));
}

TEST_F(CustomSequence, FirstStepThatCannotStartFailsFromTheLoop) {
  jobs::Engine& engine = make();
  auto spec =
      job({{"cmds", {{"/nonexistent/toolhost-no-such-binary"}, {"touch", "two"}}}}, json::object());
  ASSERT_TRUE(spec) << spec.error();
  bool started = false;
  bool finished = false;
  JobInfo seen;
  jobs::JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  events.finished = [&](const JobInfo& info) {
    finished = true;
    seen = info;
  };
  engine.submit(std::move(*spec), events);
  EXPECT_FALSE(finished) << "finished fired inside submit";
  ASSERT_TRUE(jobs::testing::run_until(&loop_, [&] { return finished; }));
  EXPECT_FALSE(started);
  EXPECT_EQ(seen.status, Status::Failed);
  EXPECT_NE(seen.error.find("cannot start"), std::string::npos) << seen.error;
  EXPECT_FALSE(exists("two"));
}

TEST_F(CustomSequence, TimeoutEndsTheRunningStepAndSkipsTheRest) {
  make();
  auto spec = job({{"cmds", {{"sh", "-c", "echo one"}, {"sleep", "100"}, {"touch", "three"}}},
                   {"timeout_ms", 1000}},
                  json::object());
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->timeout_ms, 1000u);
  JobInfo info = run(std::move(*spec));
  EXPECT_EQ(info.status, Status::TimedOut);
  ASSERT_TRUE(info.term_signal);
  EXPECT_EQ(*info.term_signal, SIGTERM);
  EXPECT_EQ(info.out.text(), "one\n");
  EXPECT_FALSE(exists("three"));
  EXPECT_TRUE(jobs::testing::group_gone(&loop_, info.pgid));
}

TEST_F(CustomSequence, CancelEndsTheRunningStepAndSkipsTheRest) {
  jobs::Engine& engine = make();
  auto spec = job({{"cmds", {{"sh", "-c", "echo one"}, {"sleep", "100"}, {"touch", "three"}}}},
                  json::object());
  ASSERT_TRUE(spec) << spec.error();
  int first_pid = 0;
  bool finished = false;
  JobInfo seen;
  jobs::JobEvents events;
  events.started = [&](const JobInfo& info) { first_pid = info.pid; };
  events.finished = [&](const JobInfo& info) {
    finished = true;
    seen = info;
  };
  std::string id = engine.submit(std::move(*spec), events);
  // The second step runs once the job shows another process than the first.
  ASSERT_TRUE(jobs::testing::run_until(
      &loop_, [&] { return finished || engine.get(id)->pid != first_pid; }));
  ASSERT_FALSE(finished) << seen.error;
  EXPECT_TRUE(engine.cancel(id));
  ASSERT_TRUE(jobs::testing::run_until(&loop_, [&] { return finished; }));
  EXPECT_EQ(seen.status, Status::Canceled);
  EXPECT_EQ(seen.out.text(), "one\n");
  EXPECT_FALSE(engine.cancel(id)) << "a finished job cannot be canceled";
  EXPECT_TRUE(jobs::testing::group_gone(&loop_, seen.pgid));
  EXPECT_FALSE(exists("three"));
}

TEST_F(CustomSequence, ShutdownInterruptsTheRunningStepAndSkipsTheRest) {
  jobs::Engine& engine = make();
  auto spec = job({{"cmds", {{"true"}, {"sleep", "100"}, {"touch", "three"}}}}, json::object());
  ASSERT_TRUE(spec) << spec.error();
  int first_pid = 0;
  JobInfo seen;
  jobs::JobEvents events;
  events.started = [&](const JobInfo& info) { first_pid = info.pid; };
  events.finished = [&](const JobInfo& info) { seen = info; };
  std::string id = engine.submit(std::move(*spec), events);
  ASSERT_TRUE(jobs::testing::run_until(&loop_, [&] { return engine.get(id)->pid != first_pid; }));
  stop();  // every handle closed, or TearDown fails
  EXPECT_EQ(seen.status, Status::Interrupted);
  EXPECT_FALSE(exists("three"));
}

}  // namespace
}  // namespace toolhost::tools
