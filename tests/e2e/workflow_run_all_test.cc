// :ToolRunAll (SPEC 4): the pending calls of the last reply in order, one after another or
// all at once, after one confirmation that lists the calls that need approval.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Regression: :ToolRunAll right after the buffer was opened asked the host for its plan before
// the host had read the buffer, and said there was no pending call.
TEST(WorkflowRunAll, RunAllRightAfterTheBufferOpensSeesTheWholeReply) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  nvim.forward_notify();
  nvim.lua("vim.fn.writefile({ 'USER: hi', 'ASSISTANT: ok', '**bash**', '```bash', 'echo hi', "
           "'```' }, 'fresh.chat.md')");
  nvim.command("edit fresh.chat.md | ToolRunAll");
  EXPECT_EQ(nvim.wait_for("notify")["msg"], "Running 1 tool call(s)…");
}

}  // namespace
}  // namespace toolhost::e2e
