// The host dies while a call runs (SPEC 4, `interrupted`): Lua marks the call interrupted in
// its buffer, and the next :ToolRun starts a new host that works.
#include <gtest/gtest.h>

#include <csignal>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(WorkflowCrash, KilledHostMarksTheRunningCallInterruptedAndTheNextRunWorks) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "crash.chat.md");
  reply(nvim, buf, bash_reply({"sleep 5", "echo after"}));
  set_cursor(nvim, row_of(nvim, buf, "sleep 5"));
  nvim.command("ToolRun");
  json started = wait_event(nvim, "ToolhostJobStarted");
  std::string id = started["id"];

  int64_t pid = nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())");
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);

  json interrupted = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(interrupted["id"], id);
  EXPECT_EQ(interrupted["status"], "interrupted");
  EXPECT_EQ(interrupted["tool"], "run_terminal_command");
  EXPECT_EQ(interrupted["buf"], buf);
  EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
            "interrupted");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("```bash\nsleep 5\n```\n"
                      "````result id=" +
                      id +
                      " tool=run_terminal_command status=interrupted\n"
                      "The tool host stopped while this call ran; its output so far: "
                      ":ToolOutput " +
                      id +
                      "\n"
                      "````\n"),
            std::string::npos)
      << text;
  bool marked = false;
  for (const auto& d : diagnostics(nvim, buf)) {
    marked = marked || (d["message"] == "✗ run_terminal_command: interrupted" &&
                        d["severity"] == 1 && d["lnum"] == row_of(nvim, buf, "**bash**") - 1);
  }
  EXPECT_TRUE(marked) << diagnostics(nvim, buf).dump();

  // The next :ToolRun starts a new host, which serves the buffer again.
  set_cursor(nvim, row_of(nvim, buf, "echo after"));
  nvim.command("ToolRun");
  json after = wait_event(nvim, "ToolhostJobStarted");
  EXPECT_NE(after["id"], id);
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["id"], after["id"]);
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_NE(nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())"), pid);
  text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo after`"), std::string::npos) << text;
  // The interrupted call did not run again.
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
}

}  // namespace
}  // namespace toolhost::e2e
