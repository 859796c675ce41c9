// :ToolRun and :ToolReject from the user's own window act on the agent's call that awaits
// approval in its split (the user need not go there), and ask which one when several wait.
// The approval notice fits one line of the command line: longer, Neovim 0.7 would stop at
// "Press ENTER" and take the keys the user was typing.
#include <gtest/gtest.h>

#include <filesystem>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The user at work in notes.txt; files `x` and `y` that an agent wants removed.
void start_user_in_a_file(NvimHarness& nvim) {
  nvim.forward_notify();
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x') vim.fn.writefile({ 'keep me' }, 'y')");
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.command("edit notes.txt");
  start_host(nvim);
}

bool exists(NvimHarness& nvim, const std::string& name) {
  return fs::exists(fs::path(nvim.temp_dir()) / name);
}

bool current_buffer_attached(NvimHarness& nvim) {
  return nvim.lua("return require('toolhost.host').is_attached(vim.api.nvim_get_current_buf())")
      .get<bool>();
}

TEST(AgentsAnywhere, ToolRunInTheUsersOwnWindowRunsTheCallThatAwaitsApproval) {
  NvimHarness nvim;
  start_user_in_a_file(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  wait_awaiting(nvim);

  nvim.command("ToolRun");  // in notes.txt, the cursor on "buy milk"
  json result = agent->wait_result(id);
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_FALSE(exists(nvim, "x"));
  EXPECT_EQ(nvim.lua("return vim.fn.expand('%:t')"), "notes.txt");
  EXPECT_FALSE(current_buffer_attached(nvim));  // notes.txt did not become a chat buffer
}

TEST(AgentsAnywhere, ToolRejectInTheUsersOwnWindowDeclinesIt) {
  NvimHarness nvim;
  start_user_in_a_file(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  wait_awaiting(nvim);

  nvim.command("ToolReject not now");
  json result = agent->wait_result(id);
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["text"].get<std::string>().find("Reason: not now"), std::string::npos);
  EXPECT_TRUE(exists(nvim, "x"));
  EXPECT_FALSE(current_buffer_attached(nvim));
}

TEST(AgentsAnywhere, SeveralWaitingTheUserPicksOne) {
  NvimHarness nvim;
  start_user_in_a_file(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t first = agent->call("run_terminal_command", {{"command", "rm x"}});
  int64_t second = agent->call("run_terminal_command", {{"command", "rm y"}});
  wait_notify_with(nvim, "rm x");
  wait_notify_with(nvim, "rm y");
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);  // both held

  // The user picks the second item vim.ui.select offers.
  json asked = nvim.lua(R"(
    local asked
    vim.ui.select = function(items, opts, on_choice)
      asked = { prompt = opts.prompt, items = vim.tbl_map(opts.format_item, items) }
      on_choice(items[2], 2)
    end
    vim.cmd("ToolRun")
    return asked
  )");
  EXPECT_EQ(asked["prompt"], "Run which tool call awaiting approval?");
  ASSERT_EQ(asked["items"].size(), 2u) << asked.dump();
  EXPECT_NE(asked["items"][0].get<std::string>().find("toolhost://agent/claude-code:"),
            std::string::npos)
      << asked.dump();
  EXPECT_NE(asked["items"][0].get<std::string>().find("rm x"), std::string::npos) << asked.dump();
  EXPECT_NE(asked["items"][1].get<std::string>().find("rm y"), std::string::npos) << asked.dump();

  EXPECT_EQ(agent->wait_result(second)["isError"], false);
  EXPECT_FALSE(exists(nvim, "y"));
  agent->round_trip();
  EXPECT_FALSE(agent->answered(first));
  EXPECT_TRUE(exists(nvim, "x"));

  // One left is acted on without asking.
  nvim.lua(R"(vim.ui.select = function() error("asked") end)");
  nvim.command("ToolRun");
  EXPECT_EQ(agent->wait_result(first)["isError"], false);
  EXPECT_FALSE(exists(nvim, "x"));
}

TEST(AgentsAnywhere, WithNothingWaitingToolRunStillSaysSo) {
  NvimHarness nvim;
  start_user_in_a_file(nvim);
  nvim.command("ToolRun");
  EXPECT_EQ(wait_notify_with(nvim, "No tool call"), "No tool call under the cursor");
}

}  // namespace
}  // namespace toolhost::e2e
