// Texts of diagnostics and result headers (SPEC 5, 10.4): durations with two decimals,
// configured timeouts in seconds, SIG names, the ✓/✗/⟳ messages.
#include "results/format.h"

#include <gtest/gtest.h>

#include <csignal>

namespace toolhost::results {
namespace {

TEST(Format, DurationIsSecondsWithTwoDecimals) {
  EXPECT_EQ(format_duration(0.01), "0.01s");
  EXPECT_EQ(format_duration(123.4), "123.40s");
  EXPECT_EQ(format_duration(1.239), "1.24s");
  EXPECT_EQ(format_duration(0), "0.00s");
}

TEST(Format, ElapsedIsWholeSecondsThenMinutes) {
  EXPECT_EQ(format_elapsed(0.4), "0s");
  EXPECT_EQ(format_elapsed(59.9), "59s");
  EXPECT_EQ(format_elapsed(60), "1m00s");
  EXPECT_EQ(format_elapsed(125.5), "2m05s");
}

TEST(Format, TimeoutUsesTheConfiguredSeconds) {
  EXPECT_EQ(format_timeout(120000), "120s");
  EXPECT_EQ(format_timeout(1000), "1s");
  EXPECT_EQ(format_timeout(1500), "1.50s");
}

TEST(Format, SignalNamesUseTheSigForm) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
}

jobs::JobInfo finished(jobs::Status status) {
  jobs::JobInfo job;
  job.id = "th-1";
  job.spec.tool = "run_terminal_command";
  job.spec.timeout_ms = 120000;
  job.status = status;
  job.duration_s = 1.24;
  return job;
}

TEST(Format, FinishedMessagesHaveTheSpecPrefixes) {
  jobs::JobInfo ok = finished(jobs::Status::Succeeded);
  ok.exit_code = 0;
  EXPECT_EQ(finished_message(ok), "✓ run_terminal_command (1.24s)");

  jobs::JobInfo failed = finished(jobs::Status::Failed);
  failed.exit_code = 2;
  EXPECT_EQ(finished_message(failed), "✗ run_terminal_command: exit 2");

  jobs::JobInfo killed = finished(jobs::Status::Failed);
  killed.term_signal = SIGKILL;
  EXPECT_EQ(finished_message(killed), "✗ run_terminal_command: SIGKILL");

  jobs::JobInfo timed_out = finished(jobs::Status::TimedOut);
  timed_out.term_signal = SIGTERM;
  EXPECT_EQ(finished_message(timed_out), "✗ run_terminal_command: timed out after 120s");

  jobs::JobInfo canceled = finished(jobs::Status::Canceled);
  canceled.term_signal = SIGTERM;
  EXPECT_EQ(finished_message(canceled), "✗ run_terminal_command: canceled");

  EXPECT_EQ(finished_message(finished(jobs::Status::Interrupted)),
            "✗ run_terminal_command: interrupted");

  jobs::JobInfo not_started = finished(jobs::Status::Failed);
  not_started.error = "cannot spawn bash";
  EXPECT_EQ(finished_message(not_started), "✗ run_terminal_command: cannot spawn bash");
}

TEST(Format, RunningMessage) {
  EXPECT_EQ(running_message("read_file", 3.7), "⟳ read_file (running 3s)");
  EXPECT_EQ(running_message("run_terminal_command", 61), "⟳ run_terminal_command (running 1m01s)");
}

}  // namespace
}  // namespace toolhost::results
