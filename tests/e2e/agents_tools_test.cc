// The tools an agent sees and calls through Neovim (SPEC 13.5): tools/list over the relay is
// the host's (custom tools of setup() included), a call whose arguments do not fit its schema
// is an isError result that never reaches the buffer, and a call in a JSON fence (an edit)
// waits for approval and does its work once approved.
#include <gtest/gtest.h>

#include <filesystem>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json with_lint_tool() {
  return json{
      {"tools", {{"lint", {{"cmd", {"make", "lint"}}, {"description", "Runs the linter"}}}}}};
}

TEST(AgentsTools, ToolListOverTheRelayHoldsTheHostsCustomTools) {
  NvimHarness nvim(with_lint_tool());
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  json response = agent->wait_response(agent->send_request("tools/list", json::object()));
  ASSERT_TRUE(response.contains("result")) << response.dump();
  json tools = response["result"]["tools"];
  std::vector<std::string> names;
  for (const auto& tool : tools) names.push_back(tool["name"]);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "run_terminal_command");
  EXPECT_EQ(names.back(), "lint");
  EXPECT_EQ(tools.back()["description"], "Runs the linter");
  EXPECT_EQ(tools.back()["annotations"]["destructiveHint"], true) << tools.back().dump();
}

// The host lists the agents' tools once per setup(): a setup() after the agent came is seen.
TEST(AgentsTools, SetupAfterTheAgentCameChangesItsToolList) {
  NvimHarness nvim;
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  auto last_tool = [&] {
    json response = agent->wait_response(agent->send_request("tools/list", json::object()));
    return response["result"]["tools"].back()["name"].get<std::string>();
  };
  EXPECT_NE(last_tool(), "lint");
  nvim.lua(R"(
    local o = require("toolhost.config").options
    assert(require("toolhost").setup({ binary = o.binary, log_level = o.log_level,
                                       auto_run = false, tools = ... }))
  )",
           json::array({with_lint_tool()["tools"]}));
  barrier(nvim);  // the host has read the setup
  EXPECT_EQ(last_tool(), "lint");
}

TEST(AgentsTools, ArgumentsThatDoNotFitAreAnErrorResultAndNeverReachTheBuffer) {
  NvimHarness nvim;
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  json result = agent->wait_result(agent->call("read_file", {{"paht", "notes.txt"}}));
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["text"].get<std::string>().find("path"), std::string::npos) << result.dump();
  EXPECT_EQ(agent_buffer(nvim, "claude-code"), 0);
}

TEST(AgentsTools, EditWaitsInAJsonFenceAndWritesTheFileOnceApproved) {
  NvimHarness nvim;
  nvim.forward_notify();
  start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("create_or_replace_file",
                           {{"path", "made.txt"}, {"content", "made by the agent\n"}});
  EXPECT_EQ(wait_notify_with(nvim, "made.txt"),
            "toolhost: claude-code asks: create_or_replace_file made.txt");  // 68 cells: no hint
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);  // held
  const fs::path made = fs::path(nvim.temp_dir()) / "made.txt";
  EXPECT_FALSE(fs::exists(made));
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("claude-code calls create_or_replace_file:\n\n```json\n"), std::string::npos)
      << text;

  nvim.lua("vim.api.nvim_set_current_buf(...) vim.api.nvim_win_set_cursor(0, { 1, 0 })",
           json::array({buf}));
  nvim.command("ToolRun");
  json result = agent->wait_result(id);
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_EQ(slurp(made), "made by the agent\n");
}

}  // namespace
}  // namespace toolhost::e2e
