// Re-runs (SPEC 4): :ToolRun on a finished block asks first, :ToolRun! does not, `r` in
// :ToolJobs re-runs a job; the new result replaces the old one. A call whose result block was
// deleted is not pending: history says it ran.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Replaces vim.ui.select: each question becomes notification "select" { items, prompt } and
// is answered `choice`.
void stub_select(NvimHarness& nvim, const std::string& choice) {
  nvim.listen("select");
  nvim.lua(R"(
    local chan, choice = ...
    vim.ui.select = function(items, opts, on_choice)
      vim.rpcnotify(chan, "select", { items = items, prompt = opts.prompt })
      on_choice(choice)
    end
  )",
           json::array({nvim.channel(), choice}));
}

// A chat whose one block `echo once` ran; returns the job's id. The cursor is on the block.
std::string ran_once(NvimHarness& nvim, int64_t& buf) {
  record_events(nvim, {"ToolhostJobFinished"});
  buf = open_chat(nvim, "rerun.chat.md");
  reply(nvim, buf, bash_reply({"echo once"}));
  set_cursor(nvim, row_of(nvim, buf, "**bash**"));
  nvim.command("ToolRun");
  json first = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(first["status"], "succeeded");
  return first["id"];
}

// The buffer holds one result block, that of job `id`, under the executed block.
void expect_one_result(NvimHarness& nvim, int64_t buf, const std::string& id) {
  Lines lines = normalized(nvim.lines(buf));
  Lines expected = {
      "USER: what is in the notes?",
      "ASSISTANT: Let me run these.",
      "",
      "✓ Executed: `echo once`",
      "````result id=" + id + " tool=run_terminal_command status=succeeded exit=0 duration=D",
      "Exit code: 0",
      "Stdout:",
      "once",
      "````"};
  EXPECT_EQ(lines, expected);
}

TEST(WorkflowRerun, BangRerunsWithoutAskingAndReplacesTheResult) {
  NvimHarness nvim;
  int64_t buf = 0;
  std::string first = ran_once(nvim, buf);
  set_cursor(nvim, row_of(nvim, buf, "✓ Executed: `echo once`"));
  nvim.command("ToolRun!");
  json again = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(again["status"], "succeeded");
  EXPECT_NE(again["id"], first);
  expect_one_result(nvim, buf, again["id"]);
}

TEST(WorkflowRerun, RunOnAFinishedBlockAsksAndRunsItAgain) {
  NvimHarness nvim;
  stub_select(nvim, "Run it again");
  int64_t buf = 0;
  std::string first = ran_once(nvim, buf);
  set_cursor(nvim, row_of(nvim, buf, "Stdout:"));  // inside the result block
  nvim.command("ToolRun");
  json asked = nvim.wait_for("select");
  EXPECT_EQ(asked["items"], json::array({"Run it again", "Cancel"}));
  EXPECT_EQ(asked["prompt"], "run_terminal_command already ran (succeeded). Run it again?");
  json again = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_NE(again["id"], first);
  expect_one_result(nvim, buf, again["id"]);
}

TEST(WorkflowRerun, CancelInThePromptRunsNothing) {
  NvimHarness nvim;
  stub_select(nvim, "Cancel");
  int64_t buf = 0;
  std::string first = ran_once(nvim, buf);
  nvim.command("ToolRun");
  nvim.wait_for("select");
  EXPECT_EQ(barrier(nvim, buf).size(), 1u);
  expect_one_result(nvim, buf, first);
}

TEST(WorkflowRerun, RInTheJobsWindowRerunsTheJob) {
  NvimHarness nvim;
  int64_t buf = 0;
  std::string first = ran_once(nvim, buf);
  record_events(nvim, {"ToolhostViewUpdated"});
  nvim.command("ToolJobs");
  for (;;) {
    json update = wait_event(nvim, "ToolhostViewUpdated");
    if (nvim.lines(update["buf"].get<int64_t>()).size() >= 3) break;
  }
  set_cursor(nvim, 3);
  nvim.request("nvim_input", {"r"});
  json again = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_NE(again["id"], first);
  expect_one_result(nvim, buf, again["id"]);
}

TEST(WorkflowRerun, DeletedResultBlockDoesNotMakeTheCallRunAgain) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 600000}});
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "deleted.chat.md");
  // A fenced block keeps its text: without its result block it reads as a call again.
  reply(nvim, buf,
        {"ASSISTANT: Reading.", "", "```json",
         R"({"tool": "read_file", "parameters": {"path": "notes.txt"}})", "```"});
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "read_file");
  wait_event(nvim, "ToolhostAllDone");

  // The user deletes the result block, and the chat plugin says the reply is complete again.
  Lines lines = nvim.lines(buf);
  int first = 0;
  while (first < static_cast<int>(lines.size()) && lines[first].rfind("````result", 0) != 0) {
    ++first;
  }
  ASSERT_LT(first + 2, static_cast<int>(lines.size())) << json(lines).dump();
  ASSERT_EQ(lines[first + 2], "````");
  nvim.lua("local buf, from, to = ... vim.api.nvim_buf_set_lines(buf, from, to, false, {})",
           json::array({buf, first, first + 3}));
  EXPECT_EQ(nvim.lines(buf).back(), "```");
  nvim.lua("require('toolhost').assistant_done(...)", json::array({buf}));

  EXPECT_EQ(barrier(nvim, buf).size(), 1u);
  json diags = diagnostics(nvim, buf);
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["message"].get<std::string>().rfind("✓ read_file (", 0), 0u) << diags.dump();
  EXPECT_EQ(diags[0]["lnum"], first - 3);  // the block's first line
}

// Regression: the jobs window wrapped a long command over many screen lines.
TEST(WorkflowRerun, JobsWindowRowsStayOneLineWithLongAndMultilineCommands) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone", "ToolhostViewUpdated"});
  int64_t buf = open_chat(nvim, "long.chat.md");
  const std::string long_command = "echo " + std::string(3000, 'x');
  reply(nvim, buf, bash_reply({long_command, "echo one\necho two"}));
  nvim.command("ToolRunAll");
  wait_event(nvim, "ToolhostAllDone");

  nvim.command("ToolJobs");
  Lines rows;
  for (;;) {
    json update = wait_event(nvim, "ToolhostViewUpdated");
    rows = nvim.lines(update["buf"].get<int64_t>());
    if (rows.size() >= 3) break;
  }
  ASSERT_EQ(rows.size(), 4u) << json(rows).dump();  // title, column names, one row per job
  EXPECT_EQ(rows[2].rfind("th-2 ", 0), 0u) << rows[2];
  const std::string multiline_end = "echo one …";
  EXPECT_EQ(rows[2].substr(rows[2].size() - multiline_end.size()), multiline_end);
  EXPECT_EQ(rows[3].rfind("th-1 ", 0), 0u) << rows[3].substr(0, 80);
  EXPECT_EQ(rows[3].substr(rows[3].size() - long_command.size()), long_command);
  // On screen too: the window does not wrap a long row into several lines.
  EXPECT_EQ(nvim.lua("return vim.wo.wrap"), false);
}

}  // namespace
}  // namespace toolhost::e2e
