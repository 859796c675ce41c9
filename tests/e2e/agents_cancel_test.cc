// An agent that gives up (SPEC 13.5): its notifications/cancelled kills a running call, which
// then gets no answer, and declines a waiting one in the buffer; when the agent disconnects,
// its running calls are canceled, its waiting ones end without running, and its
// `toolhost mcp serve` exits.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

void start_watched_project(NvimHarness& nvim) {
  nvim.forward_notify();
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x')");
  start_host(nvim);
}

// Approves the call of `command` in the agent's buffer and waits until it runs.
void approve(NvimHarness& nvim, int64_t buf, const std::string& command) {
  nvim.lua(
      "local buf, row = ... vim.api.nvim_set_current_buf(buf) "
      "vim.api.nvim_win_set_cursor(0, { row, 0 })",
      json::array({buf, row_of(nvim, buf, command)}));
  nvim.command("ToolRun");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobStarted")["tool"], "run_terminal_command");
}

std::string job_status(NvimHarness& nvim, const std::string& id) {
  return nvim
      .lua(R"(
    for _, job in ipairs(require("toolhost").jobs()) do
      if job.id == ... then return job.status end
    end
    return "missing"
  )",
           json::array({id}))
      .get<std::string>();
}

TEST(AgentsCancel, CancelledRunningCallIsKilledAndGetsNoAnswer) {
  NvimHarness nvim;
  start_watched_project(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "sleep 30"}});
  wait_notify_with(nvim, "sleep 30");
  approve(nvim, agent_buffer(nvim, "claude-code"), "sleep 30");

  agent->send_notification("notifications/cancelled", {{"requestId", id}, {"reason", "esc"}});
  json finished = wait_event(nvim, "ToolhostJobFinished");  // long before 30 s
  EXPECT_EQ(finished["status"], "canceled");
  EXPECT_EQ(job_status(nvim, finished["id"]), "canceled");
  agent->round_trip();  // the server wrote everything it had before this answer
  EXPECT_FALSE(agent->answered(id));
}

TEST(AgentsCancel, CancelledWaitingCallEndsCanceledInTheBuffer) {
  NvimHarness nvim;
  start_watched_project(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);  // held

  agent->send_notification("notifications/cancelled",
                           {{"requestId", id}, {"reason", "the user interrupted the agent"}});
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "canceled");
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("The agent withdrew this call before it ran."), std::string::npos) << text;
  EXPECT_NE(text.find("Reason: the user interrupted the agent"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(fs::path(nvim.temp_dir()) / "x"));
  agent->round_trip();
  EXPECT_FALSE(agent->answered(id));
}

TEST(AgentsCancel, DisconnectCancelsTheRunningCallAndTheWaitingOne) {
  NvimHarness nvim;
  start_watched_project(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->call("run_terminal_command", {{"command", "sleep 30"}});
  wait_notify_with(nvim, "sleep 30");
  int64_t buf = agent_buffer(nvim, "claude-code");
  approve(nvim, buf, "sleep 30");
  agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  barrier(nvim, buf);  // held

  agent->close_input();
  std::multiset<std::string> ended;
  for (int i = 0; i < 2; ++i) {
    json finished = wait_event(nvim, "ToolhostJobFinished");
    ended.insert(finished["tool"].get<std::string>() + ":" + finished["status"].get<std::string>());
  }
  EXPECT_EQ(ended, (std::multiset<std::string>{"run_terminal_command:canceled",
                                               "run_terminal_command:canceled"}));
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("The agent withdrew this call before it ran."), std::string::npos) << text;
  EXPECT_NE(text.find("Reason: the agent disconnected"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(fs::path(nvim.temp_dir()) / "x"));
  EXPECT_EQ(agent->wait_exit(), 0) << agent->log();
  EXPECT_EQ(nvim.lua("return #require('toolhost').jobs({ status = 'running' })"), 0);
}

}  // namespace
}  // namespace toolhost::e2e
