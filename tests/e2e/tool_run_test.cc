// :ToolRun end to end: a real Neovim, the plugin from this checkout, the real host binary.

#include <gtest/gtest.h>

#include <fstream>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

json extmarks(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local buf = ...
    local ns = require("toolhost.ui").namespace
    return vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })
  )",
                  json::array({buf}));
}

TEST(ToolRun, RewritesBashBlockWithResultExtmarkAndDiagnostic) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("bash_block.chat.md", "run.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");  // inside the fence
  nvim.command("ToolRun");

  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(finished["tool"], "run_terminal_command");
  EXPECT_EQ(finished["exit_code"], 0);
  EXPECT_EQ(finished["buf"], buf);

  std::vector<std::string> expected = {
      "USER: Show me the files.",
      "ASSISTANT: Let me check.",
      "",
      "✓ Executed: `echo hello from toolhost`",
      "> List something",
      "````result id=" + finished["id"].get<std::string>() +
          " tool=run_terminal_command status=succeeded exit=0 duration=D",
      "Exit code: 0",
      "Stdout:",
      "hello from toolhost",
      "````",
      "USER: ",
  };
  EXPECT_EQ(normalized(nvim.lines(buf)), expected);

  json marks = extmarks(nvim, buf);
  ASSERT_EQ(marks.size(), 1u) << marks.dump();
  EXPECT_EQ(marks[0][1], 3);             // the block's first line
  EXPECT_EQ(marks[0][3]["end_row"], 9);  // through the result block's closing fence

  json diags = diagnostics(nvim, buf);
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["lnum"], 3);
  EXPECT_EQ(diags[0]["severity"], 3);  // INFO
  EXPECT_EQ(diags[0]["source"], "toolhost");
  EXPECT_EQ(diags[0]["message"].get<std::string>().rfind("✓ run_terminal_command (", 0), 0u)
      << diags[0]["message"];
}

TEST(ToolRun, NeovimAnswersWhileToolRuns) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_diagnostics();
  int64_t buf = nvim.open_fixture("sleep_block.chat.md", "sleep.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {4, 0})");  // on the **bash** header
  nvim.command("ToolRun");
  json started = nvim.wait_for("ToolhostJobStarted");
  EXPECT_EQ(started["status"], "running");

  // The tool sleeps 3 s; Neovim keeps answering, and the job is still running after each.
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(nvim.request("nvim_eval", {"1+1"}), 2);
  }
  EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({started["id"]})),
            "running");

  // The running HINT shows while it runs.
  bool saw_running = false;
  while (!saw_running) {
    json diags = nvim.wait_for("diagnostics");
    for (const auto& d : diags) {
      std::string message = d["message"];
      saw_running = saw_running || (message.rfind("⟳ run_terminal_command (running ", 0) == 0 &&
                                    d["severity"] == 4);
    }
  }
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(nvim.lines(buf)[3], "✓ Executed: `sleep 3; echo woke up`");
}

TEST(ToolRun, UserKeepsTypingWhileToolRuns) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("sleep_block.chat.md", "typing.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  // Text typed above and below the running block moves it; the result still lands on it.
  nvim.lua("vim.api.nvim_buf_set_lines(0, 1, 1, false, {'typed above', 'and more'})");
  nvim.lua("vim.api.nvim_buf_set_lines(0, -1, -1, false, {'typed below'})");
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  auto lines = normalized(nvim.lines(buf));
  ASSERT_GE(lines.size(), 12u);
  EXPECT_EQ(lines[1], "typed above");
  EXPECT_EQ(lines[2], "and more");
  EXPECT_EQ(lines[5], "✓ Executed: `sleep 3; echo woke up`");
  EXPECT_EQ(lines[6], "> Take a nap");
  EXPECT_EQ(lines[9], "Stdout:");
  EXPECT_EQ(lines[10], "woke up");
  EXPECT_EQ(lines.back(), "typed below");
}

TEST(ToolRun, EditedBlockIsNotOverwritten) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("sleep_block.chat.md", "conflict.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  nvim.lua("vim.api.nvim_buf_set_lines(0, 5, 6, false, {'sleep 3; echo edited by the user'})");
  json finished = nvim.wait_for("ToolhostJobFinished");
  auto lines = nvim.lines(buf);
  EXPECT_EQ(lines[3], "**bash**");
  EXPECT_EQ(lines[5], "sleep 3; echo edited by the user");
  json diags = diagnostics(nvim, buf);
  bool warned = false;
  for (const auto& d : diags) {
    warned = warned || (d["severity"] == 2 && d["message"].get<std::string>().find(
                                                  "result not written") != std::string::npos);
  }
  EXPECT_TRUE(warned) << diags.dump();
}

TEST(ToolRun, WriteWaitsForInsertModeToEnd) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_insert_mode();
  int64_t buf = nvim.open_fixture("bash_block.chat.md", "insert.chat.md");
  // The job ends only once the test creates `go`, so it surely ends while the user types:
  // nvim_input() is typeahead, and an echo could end before Neovim is in insert mode.
  const std::string command = "while [ ! -e go ]; do sleep 0.02; done; echo hello from toolhost";
  nvim.lua("vim.api.nvim_buf_set_lines(0, 5, 6, false, { ... })", json::array({command}));
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
  nvim.command("ToolRun");
  nvim.request("nvim_input", {"Go"});
  ASSERT_EQ(nvim.wait_for("mode"), "InsertEnter");
  ASSERT_EQ(nvim.request("nvim_get_mode", json::array())["mode"], "i");
  std::ofstream(nvim.temp_dir() + "/go") << "go\n";
  nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(nvim.lines(buf)[3], "**bash**");
  nvim.request("nvim_input", {"typing<Esc>"});
  ASSERT_EQ(nvim.wait_for("mode"), "InsertLeave");
  auto lines = nvim.lines(buf);
  EXPECT_EQ(lines[3], "✓ Executed: `" + command + "`");
  EXPECT_EQ(lines.back(), "typing");
}

TEST(ToolRun, CancelEndsTheJobAndMarksTheBlock) {
  NvimHarness nvim(json{{"kill_grace_ms", 200}});
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("two_blocks.chat.md", "cancel.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json started = nvim.wait_for("ToolhostJobStarted");
  nvim.command("ToolCancel");
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "canceled");
  EXPECT_EQ(finished["id"], started["id"]);
  auto lines = nvim.lines(buf);
  EXPECT_EQ(lines[3], "✗ Canceled: `echo started; sleep 30`");
  EXPECT_EQ(normalized(lines)[4], "````result id=" + started["id"].get<std::string>() +
                                      " tool=run_terminal_command status=canceled " +
                                      "signal=SIGTERM duration=D");
}

TEST(ToolRun, FailingCommandShowsExitCodeAndStderr) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("two_blocks.chat.md", "fail.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {10, 0})");
  nvim.command("ToolRun");
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "failed");
  EXPECT_EQ(finished["exit_code"], 3);
  auto lines = normalized(nvim.lines(buf));
  ASSERT_EQ(lines.size(), 15u);
  EXPECT_EQ(lines[8], "✗ Failed: `echo to stderr >&2; exit 3`");
  EXPECT_EQ(lines[9], "````result id=" + finished["id"].get<std::string>() +
                          " tool=run_terminal_command status=failed exit=3 duration=D");
  EXPECT_EQ(lines[10], "Exit code: 3");
  EXPECT_EQ(lines[11], "Stderr:");
  EXPECT_EQ(lines[12], "to stderr");
  EXPECT_EQ(lines[13], "````");
  json diags = diagnostics(nvim, buf);
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["message"], "✗ run_terminal_command: exit 3");
  EXPECT_EQ(diags[0]["severity"], 1);
}

TEST(ToolRun, NoCallUnderCursorIsAnError) {
  NvimHarness nvim;
  nvim.open_fixture("bash_block.chat.md", "none.chat.md");
  nvim.forward_notify();
  nvim.lua("vim.api.nvim_win_set_cursor(0, {1, 0})");
  nvim.command("ToolRun");
  json note = nvim.wait_for("notify");
  EXPECT_EQ(note["msg"], "No tool call under the cursor");
  EXPECT_EQ(note["level"], 4);  // vim.log.levels.ERROR
}

}  // namespace
}  // namespace toolhost::e2e
