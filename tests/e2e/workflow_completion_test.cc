// When is a reply complete (SPEC 4)? When the chat plugin says so (assistant_done, a User
// autocmd of auto_run_events), or when the buffer has been quiet for auto_run_idle_ms after a
// change that was not toolhost's own. Opening or reloading an old transcript runs nothing.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

const Lines kTwoReads = {
    "ASSISTANT: Let me look.", "", "**Read:** `notes.txt`", "", "**bash**", "```bash", "ls", "```"};

// auto_run on, and an idle rule that only fires when a test wants it to.
json completion_by_plugin() {
  return json{{"auto_run", true}, {"auto_run_idle_ms", 600000}};
}

TEST(WorkflowCompletion, AssistantDoneStartsTheChain) {
  NvimHarness nvim(completion_by_plugin());
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "done.chat.md");
  reply(nvim, buf, kTwoReads, false);
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);  // streamed in, not complete yet

  nvim.lua("require('toolhost').assistant_done(...)", json::array({buf}));
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "read_file");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "run_terminal_command");
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
}

TEST(WorkflowCompletion, ChatPluginsUserEventStartsTheChain) {
  NvimHarness nvim(completion_by_plugin());
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "event.chat.md");
  reply(nvim, buf, kTwoReads, false);
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);

  nvim.command("doautocmd User CodeCompanionRequestFinished");  // the chat buffer is current
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "read_file");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "run_terminal_command");
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
}

TEST(WorkflowCompletion, IdleRunsTheChainAndToolhostsOwnWritesDoNotCount) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 50}});
  forward_host_notify(nvim);
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "idle.chat.md");
  reply(nvim, buf, kTwoReads, false);  // no assistant_done: only the idle rule

  json idle = wait_host_notify(nvim, "toolhost.idle");
  EXPECT_EQ(idle["buf"], buf);
  EXPECT_EQ(idle["first_row"], 1);  // where the reply begins
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "read_file");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "run_terminal_command");
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  EXPECT_EQ(sent(nvim, "toolhost.idle"), 1);

  // The user starts the next message below the reply. The next idle check covers that change
  // alone: the result blocks toolhost wrote did not count as changes. It runs nothing.
  int next_row = static_cast<int>(nvim.lines(buf).size());
  nvim.lua("vim.api.nvim_buf_set_lines(..., -1, -1, false, { 'USER: thanks' })",
           json::array({buf}));
  idle = wait_host_notify(nvim, "toolhost.idle");
  EXPECT_EQ(idle["first_row"], next_row);
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
  EXPECT_EQ(sent(nvim, "toolhost.idle"), 2);
  EXPECT_EQ(fired(nvim, "ToolhostAllDone"), 1);
}

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

// An old transcript whose last reply holds a pending read, opened from disk.
int64_t open_old_transcript(NvimHarness& nvim) {
  nvim.lua(R"(
    vim.fn.writefile({ 'buy milk' }, 'notes.txt')
    vim.fn.writefile({ 'USER: what is in the notes?', 'ASSISTANT: Reading.', '',
                       '**Read:** `notes.txt`', 'USER: thanks' }, 'old.chat.md')
  )");
  nvim.command("edit old.chat.md");
  return nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
}

TEST(WorkflowCompletion, OpeningOrReloadingAnOldTranscriptRunsNothing) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 50}});
  forward_host_notify(nvim);
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_old_transcript(nvim);
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);
  nvim.command("edit");  // reloaded from disk
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);

  // An edit in the user's message after the reply: the idle check runs, and only for that
  // row (neither opening nor reloading counted as a change); nothing runs.
  nvim.lua("vim.api.nvim_buf_set_lines(..., 4, 5, false, { 'USER: thanks!' })", json::array({buf}));
  json idle = wait_host_notify(nvim, "toolhost.idle");
  EXPECT_EQ(idle["first_row"], 4);
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);
  EXPECT_EQ(sent(nvim, "toolhost.idle"), 1);

  // The buffer is still served after :e: the user's own run works.
  set_cursor(nvim, 4);
  nvim.command("ToolRun");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
}

// An edit in an earlier message (above the last reply) is not the reply arriving: the idle
// check runs and nothing starts.
TEST(WorkflowCompletion, EditAboveTheLastReplyRunsNothing) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 50}});
  forward_host_notify(nvim);
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_old_transcript(nvim);
  nvim.lua("vim.api.nvim_buf_set_lines(..., 0, 1, false, { 'USER: what is in my notes?' })",
           json::array({buf}));
  json idle = wait_host_notify(nvim, "toolhost.idle");
  EXPECT_EQ(idle["first_row"], 0);
  EXPECT_EQ(barrier(nvim, buf).size(), 0u);
}

}  // namespace
}  // namespace toolhost::e2e
