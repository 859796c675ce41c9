// When is a reply complete (SPEC 4)? When the chat plugin says so (assistant_done, a User
// autocmd of auto_run_events), or when the buffer has been quiet for auto_run_idle_ms after a
// change that was not toolhost's own. Opening or reloading an old transcript runs nothing.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Regression: Neovim ends every buffer-update listener of a buffer it re-reads (:e) or unloads
// (:bd), the host's too, and the buffer stayed "attached" for Lua: :ToolRun answered "this
// buffer is not attached" and the idle rule watched nothing. It is attached again now.
TEST(WorkflowCompletion, BufferReloadedOrReopenedIsServedAgain) {
  NvimHarness nvim;
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "reload.chat.md");
  reply(nvim, buf, bash_reply({"echo one", "echo two"}), false);
  nvim.command("write");
  barrier(nvim, buf);

  nvim.command("edit");
  set_cursor(nvim, row_of(nvim, buf, "echo one"));
  nvim.command("ToolRun");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  nvim.command("write | bdelete | edit reload.chat.md");
  set_cursor(nvim, row_of(nvim, buf, "echo two"));
  nvim.command("ToolRun");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  EXPECT_EQ(nvim.lua("return vim.api.nvim_get_current_buf()"), buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo one`"), std::string::npos) << text;
  EXPECT_NE(text.find("✓ Executed: `echo two`"), std::string::npos) << text;
}

}  // namespace
}  // namespace toolhost::e2e
