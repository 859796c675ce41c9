// :ToolAttach / :ToolDetach end to end: what happens to a buffer's running calls.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Lets the job of wait_block.chat.md end: it waits for a file `go` in the project root.
void signal_go(NvimHarness& nvim) {
  nvim.lua("io.open(vim.fn.getcwd() .. '/go', 'w'):close()");
}

TEST(Attach, DetachThenAttachWhileAJobRunsStillWritesItsResult) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("wait_block.chat.md", "reattach.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  nvim.command("ToolDetach");
  nvim.command("ToolAttach");
  signal_go(nvim);
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  auto lines = nvim.lines(buf);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[3], "✓ Executed: `while [ ! -e go ]; do sleep 0.02; done; echo went`");
  EXPECT_EQ(lines[4].rfind("````result id=" + finished["id"].get<std::string>(), 0), 0u)
      << lines[4];
}

TEST(Attach, DetachedBufferKeepsItsTextWhenTheJobEnds) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("wait_block.chat.md", "detached.chat.md");
  auto before = nvim.lines(buf);
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  nvim.command("ToolDetach");
  signal_go(nvim);
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(nvim.lines(buf), before);
}

TEST(Attach, RunOnAnUnclosedBlockSaysItIsNotClosedYet) {
  NvimHarness nvim;
  nvim.open_fixture("unclosed_block.chat.md", "unclosed.chat.md");
  nvim.forward_notify();
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json note = nvim.wait_for("notify");
  EXPECT_EQ(note["msg"], "This tool call's block is not closed yet (its closing fence is missing)");
  EXPECT_EQ(note["level"], 3);  // vim.log.levels.WARN
}

}  // namespace
}  // namespace toolhost::e2e
