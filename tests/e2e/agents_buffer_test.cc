// The agent's buffer is the user's (SPEC 13.5): wiping it must not leave the agent waiting
// forever for a call that can no longer be approved, and the agent's next call gets a fresh
// buffer. Regression: the held call was forgotten with the buffer and never answered.
#include <gtest/gtest.h>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(AgentsBuffer, WipingTheBufferEndsItsWaitingCallAndTheNextCallGetsANewOne) {
  NvimHarness nvim;
  nvim.forward_notify();
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x')");
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t waiting = agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);  // held

  nvim.command("bwipeout! " + std::to_string(buf));
  json result = agent->wait_result(waiting);
  EXPECT_EQ(result["isError"], true) << result.dump();
  EXPECT_EQ(result["text"],
            "The agent's buffer in Neovim was closed before the call was approved.");

  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  json next = agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(next["text"], "     1\tbuy milk") << next.dump();
  int64_t fresh = agent_buffer(nvim, "claude-code");
  EXPECT_NE(fresh, 0);
  EXPECT_NE(fresh, buf);
}

// Markdown's syntax costs Neovim 15-30 ms a buffer: an agent's buffer pays it when a window
// first shows it, not when the agent connects.
TEST(AgentsBuffer, TheBufferBecomesMarkdownWhenAWindowFirstShowsIt) {
  NvimHarness nvim;
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  int64_t buf = agent_buffer(nvim, "claude-code");
  ASSERT_NE(buf, 0);
  const std::string filetype = "return vim.bo[...].filetype";
  EXPECT_EQ(nvim.lua(filetype, json::array({buf})), "");

  nvim.command("sbuffer " + std::to_string(buf));
  EXPECT_EQ(nvim.lua(filetype, json::array({buf})), "markdown");
  // Markdown's highlighting: its syntax, or (0.12's ftplugin) tree-sitter's.
  EXPECT_EQ(nvim.lua(R"(
    local buf = ...
    local ts = vim.treesitter and vim.treesitter.highlighter
    if ts and ts.active[buf] then return "markdown" end
    return vim.b[buf].current_syntax
  )",
                     json::array({buf})),
            "markdown");
}

// Neovim cannot write a call that needs approval into the agent's buffer: the agent hears why
// at once, in a line it can read (a Lua stack traceback followed it), and does not wait for an
// approval that cannot come; its next call is unaffected.
TEST(AgentsBuffer, CallThatCannotBeWrittenIsAnErrorNamingWhyAndTheNextCallRuns) {
  NvimHarness nvim;
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x')");
  start_project_with_notes(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  int64_t buf = agent_buffer(nvim, "claude-code");
  nvim.lua("vim.bo[...].modifiable = false", json::array({buf}));

  json refused = agent->wait_result(agent->call("run_terminal_command", {{"command", "rm x"}}));
  EXPECT_EQ(refused["isError"], true) << refused.dump();
  EXPECT_EQ(refused["text"],
            "toolhost could not write the call into Neovim: cannot write into "
            "toolhost://agent/claude-code: Buffer is not 'modifiable'");

  nvim.lua("vim.bo[...].modifiable = true", json::array({buf}));
  json next = agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(next["text"], "     1\tbuy milk") << next.dump();
  EXPECT_EQ(nvim.lua("return vim.fn.filereadable('x')"), 1);
}

}  // namespace
}  // namespace toolhost::e2e
