// submit() (SPEC 10.5): a chat plugin that keeps tool calls as structured data hands one to
// toolhost; the call gets the same policy, job and feedback, and its result comes back to
// on_done (and into the buffer only when asked).
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// A chat buffer (no tool-call text in it) and a submit() whose on_done is forwarded to the
// test as notification "done".
int64_t open_chat(NvimHarness& nvim) {
  nvim.listen("done");
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.lua(
      R"(vim.fn.writefile({ 'USER: notes?', 'ASSISTANT: (a tool call)', 'USER: ' }, 's.chat.md'))");
  nvim.command("edit s.chat.md");
  return nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
}

std::string submit(NvimHarness& nvim, int64_t buf, const json& call) {
  return nvim
      .lua(R"(
    local chan, buf, call = ...
    call.on_done = function(result) vim.rpcnotify(chan, "done", result) end
    return require("toolhost").submit(buf, call)
  )",
           json::array({nvim.channel(), buf, call}))
      .get<std::string>();
}

TEST(Submit, AutoAcceptableCallRunsAndReportsWithoutTouchingTheBuffer) {
  NvimHarness nvim;
  int64_t buf = open_chat(nvim);
  auto before = nvim.lines(buf);
  std::string id = submit(nvim, buf,
                          {{"id", "call_1"},
                           {"name", "read_files"},  // an alias, with JSON-encoded arguments
                           {"arguments", R"({"file_path": "notes.txt"})"},
                           {"row", 1},
                           {"end_row", 2}});
  EXPECT_EQ(id, "call_1");
  json done = nvim.wait_for("done");
  EXPECT_EQ(done["id"], "call_1");
  EXPECT_EQ(done["status"], "succeeded");
  EXPECT_EQ(done["output"], "     1\tbuy milk\n");
  EXPECT_EQ(nvim.lines(buf), before);
}

TEST(Submit, CallThatNeedsApprovalWaitsForTheRunKeyAndCanWriteItsResult) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  int64_t buf = open_chat(nvim);
  submit(nvim, buf,
         {{"id", "call_2"},
          {"name", "run_terminal_command"},
          {"arguments", {{"command", "echo submitted"}}},
          {"row", 1},
          {"end_row", 2},
          {"write_result", true}});
  for (;;) {  // the hint shows on the submitted rows
    json diags = nvim.wait_for("diagnostics");
    if (!diags.empty() && diags[0]["message"].get<std::string>().rfind(
                              "? run_terminal_command awaiting approval (", 0) == 0) {
      EXPECT_EQ(diags[0]["lnum"], 1);
      break;
    }
  }
  nvim.lua("vim.api.nvim_win_set_cursor(0, {3, 0})");  // outside: the first awaiting call
  nvim.command("ToolRun");
  json done = nvim.wait_for("done");
  EXPECT_EQ(done["status"], "succeeded");
  EXPECT_EQ(done["output"], "Exit code: 0\nStdout:\nsubmitted\n");
  auto lines = nvim.lines(buf);
  ASSERT_EQ(lines.size(), 8u) << json(lines).dump(1);
  EXPECT_EQ(lines[2].rfind("````result id=" + done["job"].get<std::string>() +
                               " tool=run_terminal_command status=succeeded exit=0",
                           0),
            0u)
      << lines[2];
  EXPECT_EQ(lines[5], "submitted");
  EXPECT_EQ(lines[6], "````");
  EXPECT_EQ(lines[7], "USER: ");
}

// The finished call's ✓ is not written into the buffer, only its diagnostic: that list does not
// hide the diagnostics, yet a ToolhostJobFinished handler finds the ✓ right after the event,
// even when the refresh after the last one would otherwise wait (refresh.lua).
TEST(Submit, ResultNotWrittenStillShowsItsCheckMarkRightAfterJobFinished) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = open_chat(nvim);
  nvim.lua(R"(
    local buf = ...
    require("toolhost").attach(buf)
    local refresh = require("toolhost.refresh")
    refresh.spacing, refresh.max_wait_ms = 1e9, 60000 -- a refresh that may wait, waits a minute
    require("toolhost.blocks").state(buf)
    refresh.now(buf) -- the buffer's last refresh is recent from now on
  )",
           json::array({buf}));
  submit(nvim, buf,
         {{"id", "call_3"},
          {"name", "read_files"},
          {"arguments", {{"file_path", "notes.txt"}}},
          {"row", 1},
          {"end_row", 2}});
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  json messages =
      nvim.lua("return vim.tbl_map(function(d) return d.message end, vim.diagnostic.get(...))",
               json::array({buf}));
  ASSERT_EQ(messages.size(), 1u) << messages.dump();
  EXPECT_EQ(messages[0].get<std::string>().rfind("✓", 0), 0u) << messages.dump();
  EXPECT_EQ(nvim.lines(buf).size(), 3u);  // nothing written
}

TEST(Submit, UnknownToolIsAFailedResultForTheCaller) {
  NvimHarness nvim;
  int64_t buf = open_chat(nvim);
  submit(nvim, buf, {{"name", "launch_rockets"}, {"arguments", json::object()}, {"row", 1}});
  json done = nvim.wait_for("done");
  EXPECT_EQ(done["status"], "failed");
  EXPECT_EQ(done["output"], "Refused: unknown tool `launch_rockets`\n");
}

}  // namespace
}  // namespace toolhost::e2e
