// What the session tells the quickfix layer of a job that started (session_quickfix.cc).
#include <gtest/gtest.h>

#include "session/session.h"

namespace toolhost::session {
namespace {

jobs::JobInfo job_of(std::string tool, std::vector<std::string> argv) {
  jobs::JobInfo job;
  job.id = "th-4";
  job.log_path = "/c/jobs/th-4.log";
  job.spec.tool = std::move(tool);
  job.spec.call_id = "abc";
  job.spec.cwd = "/p";
  job.spec.argv = std::move(argv);
  return job;
}

TEST(QuickfixJobStart, AShellLineIsReadAsACommandLine) {
  auto start = quickfix_start(job_of("run_terminal_command", {"bash", "-c", "make -k 2>&1"}), {});
  EXPECT_EQ(start.command, "make -k 2>&1");
  EXPECT_EQ(start.words, (std::vector<std::string>{"make", "-k", "2"}));
  EXPECT_EQ(start.job_id, "th-4");
  EXPECT_EQ(start.call_id, "abc");
  EXPECT_EQ(start.cwd, "/p");
  EXPECT_EQ(start.log_path, "/c/jobs/th-4.log");
  EXPECT_FALSE(start.tool_format);
}

TEST(QuickfixJobStart, ACustomToolBringsItsOwnFormatAndArgv) {
  core::CustomTool check;
  check.name = "check";
  check.quickfix = core::QuickfixFormat{"", "tsc", false};
  auto start = quickfix_start(job_of("check", {"just", "check", "--all"}), {check});
  ASSERT_TRUE(start.tool_format);
  EXPECT_EQ(start.tool_format->compiler, "tsc");
  EXPECT_EQ(start.command, "just check --all");
  EXPECT_EQ(quickfix::source_of(start), "just");
}

TEST(QuickfixJobStart, AJobWithoutAProcessHasNoWords) {
  auto start = quickfix_start(job_of("read_file", {}), {});
  EXPECT_TRUE(start.words.empty());
  EXPECT_EQ(quickfix::source_of(start), "read_file");
}

}  // namespace
}  // namespace toolhost::session
