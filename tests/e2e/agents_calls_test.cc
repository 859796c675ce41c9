// An agent's calls that policy runs at once (SPEC 13.5): through the real `toolhost mcp serve`,
// each arrives in the agent's buffer as an assistant message holding its block, runs, gets its
// result block there, and the agent gets the result's text. Each agent has its own buffer, and
// their jobs are Neovim's jobs like any other.
#include <gtest/gtest.h>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// A project with notes.txt whose host serves agents.
TEST(AgentsCalls, ReadFileAnswersWithTheFileAndShowsTheCallAndResultInTheAgentBuffer) {
  NvimHarness nvim;
  start_project_with_notes(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  json result = agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["text"], "     1\tbuy milk");

  int64_t buf = agent_buffer(nvim, "claude-code");
  ASSERT_NE(buf, 0);
  barrier(nvim, buf);  // the result block is written
  EXPECT_EQ(normalized(nvim.lines(buf)),
            (Lines{kClaudeCodeIntro, "ASSISTANT:", "claude-code calls read_file:", "", "```json",
                   R"({"parameters":{"path":"notes.txt"},"tool":"read_file"})", "```",
                   "````result id=th-1 tool=read_file status=succeeded duration=D",
                   "     1\tbuy milk", "````", ""}));
  EXPECT_EQ(nvim.lua("return vim.b[...].toolhost_agent", json::array({buf})), "claude-code");
}

TEST(AgentsCalls, AllowListedCommandRunsAtOnceAndAnswersItsOutput) {
  NvimHarness nvim;
  start_project_with_notes(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  json result =
      agent->wait_result(agent->call("run_terminal_command", {{"command", "ls notes.txt"}}));
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["text"], "Exit code: 0\nStdout:\nnotes.txt") << result.dump();

  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);
  // The plain command came as llm-sidekick's bash block, which ran as any chat block does.
  EXPECT_EQ(normalized(nvim.lines(buf)),
            (Lines{kClaudeCodeIntro, "ASSISTANT:", "claude-code calls run_terminal_command:", "",
                   "✓ Executed: `ls notes.txt`",
                   "````result id=th-1 tool=run_terminal_command status=succeeded exit=0 "
                   "duration=D",
                   "Exit code: 0", "Stdout:", "notes.txt", "````", ""}));
}

TEST(AgentsCalls, SuccessiveCallsAreSuccessiveMessagesInOneBuffer) {
  NvimHarness nvim;
  start_project_with_notes(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  agent->wait_result(agent->call("run_terminal_command", {{"command", "ls notes.txt"}}));
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  size_t first = text.find("claude-code calls read_file:");
  size_t second = text.find("claude-code calls run_terminal_command:");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_EQ(text.find(kClaudeCodeIntro, 1), std::string::npos) << "one intro: " << text;
  EXPECT_EQ(text.rfind(kClaudeCodeIntro, 0), 0u) << text;
}

TEST(AgentsCalls, TwoAgentsAtOnceGetTwoBuffers) {
  NvimHarness nvim;
  start_project_with_notes(nvim);
  auto claude = connect_agent(nvim, "claude-code");
  auto codex = connect_agent(nvim, "codex-mcp-client");
  int64_t from_claude = claude->call("read_file", {{"path", "notes.txt"}});
  int64_t from_codex = codex->call("run_terminal_command", {{"command", "ls notes.txt"}});
  EXPECT_EQ(claude->wait_result(from_claude)["text"], "     1\tbuy milk");
  EXPECT_EQ(codex->wait_result(from_codex)["text"], "Exit code: 0\nStdout:\nnotes.txt");

  int64_t claude_buf = agent_buffer(nvim, "claude-code");
  int64_t codex_buf = agent_buffer(nvim, "codex-mcp-client");
  ASSERT_NE(claude_buf, 0);
  ASSERT_NE(codex_buf, 0);
  EXPECT_NE(claude_buf, codex_buf);
  barrier(nvim, claude_buf);
  barrier(nvim, codex_buf);
  std::string claude_text = text_of(nvim, claude_buf);
  std::string codex_text = text_of(nvim, codex_buf);
  EXPECT_NE(claude_text.find("claude-code calls read_file:"), std::string::npos) << claude_text;
  EXPECT_EQ(claude_text.find("run_terminal_command"), std::string::npos) << claude_text;
  EXPECT_EQ(codex_text.rfind("USER: codex-mcp-client is connected", 0), 0u) << codex_text;
  EXPECT_NE(codex_text.find("codex-mcp-client calls run_terminal_command:"), std::string::npos)
      << codex_text;
  EXPECT_EQ(codex_text.find("read_file"), std::string::npos) << codex_text;
}

TEST(AgentsCalls, TheAgentsJobsAreListedWithTheirBuffers) {
  NvimHarness nvim;
  start_project_with_notes(nvim);
  auto claude = connect_agent(nvim, "claude-code");
  auto codex = connect_agent(nvim, "codex-mcp-client");
  claude->wait_result(claude->call("read_file", {{"path", "notes.txt"}}));
  codex->wait_result(codex->call("run_terminal_command", {{"command", "ls notes.txt"}}));
  int64_t claude_buf = agent_buffer(nvim, "claude-code");
  int64_t codex_buf = agent_buffer(nvim, "codex-mcp-client");
  barrier(nvim, claude_buf);
  barrier(nvim, codex_buf);

  json jobs = nvim.lua(R"(
    return vim.tbl_map(function(job)
      return { tool = job.tool, status = job.status, buf = job.buf }
    end, require("toolhost").jobs())
  )");
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump();
  // Newest first.
  EXPECT_EQ(jobs[0],
            (json{{"tool", "run_terminal_command"}, {"status", "succeeded"}, {"buf", codex_buf}}));
  EXPECT_EQ(jobs[1], (json{{"tool", "read_file"}, {"status", "succeeded"}, {"buf", claude_buf}}));

  // :ToolJobs shows them too, once the host answered its list (which the barrier waits for).
  nvim.command("ToolJobs");
  barrier(nvim);
  std::string view = text_of(nvim, 0);
  EXPECT_NE(view.find("read_file"), std::string::npos) << view;
  EXPECT_NE(view.find("run_terminal_command"), std::string::npos) << view;
}

}  // namespace
}  // namespace toolhost::e2e
