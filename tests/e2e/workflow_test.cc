// The agent loop in a real Neovim (SPEC 4): a reply arrives as a chat plugin writes it, the
// auto-run chain runs what may run by itself and stops at the first call that needs approval,
// and the user approves, rejects or runs everything.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(Workflow, ChainRunsReadOnlyCallsStopsForApprovalAndGoesOnAfterIt) {
  NvimHarness nvim(json{{"auto_run", true}});
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostAllDone");
  nvim.forward_diagnostics();
  int64_t buf = open_chat(nvim, "loop.chat.md");
  reply(nvim, buf, kReadEchoCat);

  json read = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(read["tool"], "read_file");
  EXPECT_EQ(read["status"], "succeeded");
  std::string hint = wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  EXPECT_EQ(hint,
            "? run_terminal_command awaiting approval (<leader>tr run, <leader>tx reject): "
            "`echo` is not on the allow list");
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "?1 ✓1");
  EXPECT_EQ(text_of(nvim, buf).find("approved\n````"), std::string::npos);  // not run

  // Outside any block, the run key approves the first call that waits.
  nvim.lua("vim.api.nvim_win_set_cursor(0, {1, 0})");
  nvim.command("ToolRun");
  json approved = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(approved["status"], "succeeded");
  json cat = nvim.wait_for("ToolhostJobFinished");  // the chain goes on by itself
  EXPECT_EQ(cat["status"], "succeeded");
  json all_done = nvim.wait_for("ToolhostAllDone");
  EXPECT_EQ(all_done["buf"], buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo approved`"), std::string::npos) << text;
  EXPECT_NE(text.find("✓ Executed: `cat notes.txt`"), std::string::npos) << text;
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "✓3");
}

// A block that grows after it first parsed (its `> purpose` line streamed in after the closing
// fence) still gets its result: the mark covers the block as it is when the call starts.
TEST(Workflow, BlockThatGrewWhileStreamingIsRewrittenWhenItRuns) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.listen("marked");
  nvim.after_each_batch(R"(function(chan, batch)
    for _, entry in ipairs(batch and batch.buffers or {}) do
      if entry.marks and #entry.marks > 0 then vim.rpcnotify(chan, "marked", entry.marks) end
    end
  end)");
  int64_t buf = open_chat(nvim, "grow.chat.md");
  reply(nvim, buf, {"ASSISTANT: Here.", "", "**bash**", "```bash", "echo grown", "```"}, false);
  nvim.wait_for("marked");  // the block has its extmark before it grows
  reply(nvim, buf, {"> streamed in later", "USER: "}, false);
  nvim.lua("vim.api.nvim_win_set_cursor(0, {4, 0})");
  nvim.command("ToolRun");
  json done = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(done["status"], "succeeded");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo grown`\n> streamed in later\n````result id="),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace toolhost::e2e
