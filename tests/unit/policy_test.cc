// What auto-run may start without asking (SPEC 7), tool by tool, with the reason shown.
#include "tools/policy.h"

#include <gtest/gtest.h>

#include "policy_calls.h"
#include "test_jobs.h"

namespace toolhost::tools {
namespace {

using Verdict = Approval::Verdict;

class Policy : public ::testing::Test {
 protected:
  Approval decide(const core::ToolCall& c) { return auto_accept(c, config_, dir_.path()); }
  core::Config config_;
  jobs::testing::TempDir dir_;
};

TEST_F(Policy, ReadOnlyToolsAutoRun) {
  for (const char* tool :
       {"read_file", "list_directory", "search_files", "get_quickfix", "get_diagnostics"}) {
    Approval a = decide(call(tool, {{"path", "x"}}));
    EXPECT_EQ(a.verdict, Verdict::Yes) << tool;
    EXPECT_EQ(a.reason, std::string(tool) + " only reads");
  }
}

TEST_F(Policy, EditsAutoRunOnlyWithAutoAcceptEdits) {
  const char* const edits[] = {"create_or_replace_file", "replace_in_file", "insert_into_file",
                               "edit_buffer"};
  for (const char* tool : edits) {
    Approval held = decide(call(tool));
    EXPECT_EQ(held.verdict, Verdict::No) << tool;
    EXPECT_EQ(held.reason, std::string(tool) + " edits files (auto_accept_edits is off)");
    EXPECT_TRUE(writes_files(tool)) << tool;
  }
  config_.auto_accept_edits = true;
  for (const char* tool : edits) EXPECT_TRUE(decide(call(tool)).auto_run()) << tool;
}

TEST_F(Policy, DeletingMovingAndCopyingAlwaysAsk) {
  config_.auto_accept_edits = true;
  for (const char* tool : {"delete_file", "move_file", "copy_file"}) {
    Approval a = decide(call(tool));
    EXPECT_EQ(a.verdict, Verdict::No) << tool;
    EXPECT_EQ(a.reason, std::string(tool) + " always needs approval");
  }
}

TEST_F(Policy, TheShellFollowsTheAllowList) {
  EXPECT_TRUE(decide(call("run_terminal_command", {{"command", "git status"}})).auto_run());
  Approval meta = decide(call("run_terminal_command", {{"command", "ls; rm -rf x"}}));
  EXPECT_EQ(meta.verdict, Verdict::No);
  EXPECT_FALSE(meta.reason.empty());
  EXPECT_FALSE(decide(call("run_terminal_command", {{"command", "make test"}})).auto_run());
  EXPECT_FALSE(decide(call("run_terminal_command", {{"command", 5}})).auto_run());
  // The user's list replaces the built-in one.
  config_.allow_commands = std::vector<core::AllowEntry>{{{"make", "test"}, {}}};
  EXPECT_TRUE(decide(call("run_terminal_command", {{"command", "make test"}})).auto_run());
  EXPECT_FALSE(decide(call("run_terminal_command", {{"command", "git status"}})).auto_run());
}

TEST_F(Policy, CustomToolsFollowTheirAutoAccept) {
  core::CustomTool yes, no, ask;
  yes.name = "fmt";
  yes.auto_accept = core::CustomTool::AutoAccept::Yes;
  no.name = "deploy";
  ask.name = "maybe";
  ask.auto_accept = core::CustomTool::AutoAccept::Function;
  config_.tools = {yes, no, ask};
  EXPECT_EQ(decide(call("fmt")).verdict, Verdict::Yes);
  EXPECT_EQ(decide(call("deploy")).verdict, Verdict::No);
  EXPECT_EQ(decide(call("maybe")).verdict, Verdict::AskLua);
  Approval unknown = decide(call("launch"));
  EXPECT_EQ(unknown.verdict, Verdict::No);
  EXPECT_EQ(unknown.reason, "unknown tool `launch`");
}

}  // namespace
}  // namespace toolhost::tools
