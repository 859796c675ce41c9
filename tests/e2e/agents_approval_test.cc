// An agent's call that policy holds (SPEC 13.5): vim.notify names the agent and the command,
// the agent's buffer opens as serve.open says without taking the focus, and the call waits for
// :ToolRun (its output streams to the agent as progress, then the result) or :ToolReject
// (an isError result with the user's reason). Calls sent at once are approved in order.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Focus {
  int64_t win;
  int64_t buf;
  int64_t tab;
  int windows;
};

Focus focus(NvimHarness& nvim) {
  json f = nvim.lua(R"(return { vim.api.nvim_get_current_win(), vim.api.nvim_get_current_buf(),
    vim.api.nvim_get_current_tabpage(), #vim.api.nvim_tabpage_list_wins(0) })");
  return {f[0], f[1], f[2], f[3]};
}

// A project with a file `x` the agent wants removed, the user at work in notes.txt.
void start_project_for_approvals(NvimHarness& nvim) {
  nvim.forward_notify();
  nvim.forward_diagnostics();
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x')");
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.command("edit notes.txt");
  start_host(nvim);
}

const std::string kRmNotice = "toolhost: claude-code asks: rm x (:ToolRun/:ToolReject)";

// The user goes to the agent's buffer with the cursor on row `row` (1-based).
void go_to(NvimHarness& nvim, int64_t buf, int row) {
  nvim.lua(
      "local buf, row = ... vim.api.nvim_set_current_win(vim.fn.bufwinid(buf)) "
      "vim.api.nvim_win_set_cursor(0, { row, 0 })",
      json::array({buf, row}));
}

void touch(NvimHarness& nvim, const std::string& name) {
  std::ofstream(fs::path(nvim.temp_dir()) / name) << "\n";
}

TEST(AgentsApproval, CommandThatNeedsApprovalNotifiesAndOpensASplitWithoutTakingTheFocus) {
  NvimHarness nvim;
  start_project_for_approvals(nvim);
  Focus before = focus(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "rm x"}});
  EXPECT_EQ(wait_notify_with(nvim, "rm x"), kRmNotice);

  int64_t buf = agent_buffer(nvim, "claude-code");
  ASSERT_NE(buf, 0);
  EXPECT_EQ(windows_showing(nvim, buf), 1);
  Focus after = focus(nvim);
  EXPECT_EQ(after.win, before.win);
  EXPECT_EQ(after.buf, before.buf);
  EXPECT_EQ(after.windows, before.windows + 1);
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  agent->round_trip();
  EXPECT_FALSE(agent->answered(id));
  EXPECT_TRUE(fs::exists(fs::path(nvim.temp_dir()) / "x"));
}

TEST(AgentsApproval, ServeOpenNoneOnlyNotifies) {
  NvimHarness nvim(json{{"serve", {{"open", "none"}}}});
  start_project_for_approvals(nvim);
  Focus before = focus(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->call("run_terminal_command", {{"command", "rm x"}});
  EXPECT_EQ(wait_notify_with(nvim, "rm x"), kRmNotice);
  int64_t buf = agent_buffer(nvim, "claude-code");
  ASSERT_NE(buf, 0);
  EXPECT_EQ(windows_showing(nvim, buf), 0);
  EXPECT_EQ(focus(nvim).windows, before.windows);
}

TEST(AgentsApproval, ServeOpenTabOpensATabAndStaysOnTheCurrentOne) {
  NvimHarness nvim(json{{"serve", {{"open", "tab"}}}});
  start_project_for_approvals(nvim);
  Focus before = focus(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  Focus after = focus(nvim);
  EXPECT_EQ(after.tab, before.tab);
  EXPECT_EQ(after.win, before.win);
  EXPECT_EQ(nvim.lua("return #vim.api.nvim_list_tabpages()"), 2);
}

// The command prints a line every 10 ms until the test creates `stop`: its output streams to
// the agent as progress notifications, at most 4 a second, each with the last lines.
TEST(AgentsApproval, ToolRunStreamsProgressAndAnswersTheResult) {
  NvimHarness nvim;
  start_project_for_approvals(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  const std::string command =
      "i=0; while [ ! -e stop ]; do i=$((i+1)); echo line$i; sleep 0.01; done; echo done";
  int64_t id = agent->call("run_terminal_command", {{"command", command}}, "tok-1");
  wait_notify_with(nvim, "i=0; while");  // the notice keeps the command's start
  int64_t buf = agent_buffer(nvim, "claude-code");
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");

  auto started = std::chrono::steady_clock::now();
  go_to(nvim, buf, row_of(nvim, buf, command));
  nvim.command("ToolRun");
  std::vector<json> progress;
  for (int i = 0; i < 3; ++i)
    progress.push_back(agent->wait_notification("notifications/progress"));
  touch(nvim, "stop");
  json result = agent->wait_result(id);
  double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  for (const auto& more : agent->received("notifications/progress")) progress.push_back(more);

  EXPECT_EQ(result["isError"], false) << result.dump();
  const std::string text = result["text"];
  EXPECT_EQ(text.rfind("Exit code: 0\nStdout:\n", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 5), "\ndone") << text;

  // ≤ 4 a second: the notifications were sent within the run, which `elapsed_ms` covers.
  EXPECT_LE(progress.size(), static_cast<size_t>(elapsed_ms / 250) + 1) << elapsed_ms;
  int last_value = 0, last_line = 0;
  for (const auto& p : progress) {
    EXPECT_EQ(p["progressToken"], "tok-1");
    EXPECT_GT(p["progress"].get<int>(), last_value) << p.dump();
    last_value = p["progress"].get<int>();
    // The message ends with the newest line: lineN with N rising.
    std::string message = p["message"];
    size_t at = message.rfind("line");
    ASSERT_NE(at, std::string::npos) << message;
    int number = std::stoi(message.substr(at + 4));
    EXPECT_GT(number, last_line) << message;
    last_line = number;
  }
  barrier(nvim, buf);
  std::string buffer = text_of(nvim, buf);
  EXPECT_NE(buffer.find(" tool=run_terminal_command status=succeeded exit=0"), std::string::npos)
      << buffer;
  EXPECT_NE(buffer.find("\ndone\n"), std::string::npos) << buffer;
}

TEST(AgentsApproval, ToolRejectAnswersAnErrorWithTheReason) {
  NvimHarness nvim;
  start_project_for_approvals(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t id = agent->call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(nvim, "rm x");
  int64_t buf = agent_buffer(nvim, "claude-code");
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  go_to(nvim, buf, row_of(nvim, buf, "rm x"));
  nvim.command("ToolReject too risky");

  json result = agent->wait_result(id);
  EXPECT_EQ(result["isError"], true);
  const std::string text = result["text"];
  EXPECT_EQ(text.rfind("✗ run_terminal_command: rejected in Neovim\n", 0), 0u) << text;
  EXPECT_NE(text.find("Reason: too risky"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(fs::path(nvim.temp_dir()) / "x"));
  barrier(nvim, buf);
  EXPECT_NE(text_of(nvim, buf).find("✗ Rejected: `rm x`"), std::string::npos) << text_of(nvim, buf);
}

TEST(AgentsApproval, CallsSentAtOnceAreApprovedInArrivalOrder) {
  NvimHarness nvim;
  start_project_for_approvals(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  int64_t first = agent->call("run_terminal_command", {{"command", "echo first"}});
  int64_t second = agent->call("run_terminal_command", {{"command", "echo second"}});
  wait_notify_with(nvim, "echo first");
  wait_notify_with(nvim, "echo second");
  int64_t buf = agent_buffer(nvim, "claude-code");
  barrier(nvim, buf);                        // both held
  EXPECT_EQ(windows_showing(nvim, buf), 1);  // the second call found it open

  go_to(nvim, buf, 1);  // the intro: outside any block
  nvim.command("ToolRun");
  json result = agent->wait_result(first);
  EXPECT_EQ(result["text"], "Exit code: 0\nStdout:\nfirst");
  agent->round_trip();
  EXPECT_FALSE(agent->answered(second));

  go_to(nvim, buf, 1);
  nvim.command("ToolRun");
  EXPECT_EQ(agent->wait_result(second)["text"], "Exit code: 0\nStdout:\nsecond");
}

}  // namespace
}  // namespace toolhost::e2e
