// MCP servers' tools from a chat buffer (SPEC 13.3), end to end: a real Neovim, the real host,
// and the reference server @modelcontextprotocol/server-everything on stdio (tests/mcp/
// node_modules, from scripts/install-test-node-deps; $TOOLHOST_MCP_NODE_MODULES points
// elsewhere). Skipped without Node.js or the package.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/mcp_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// auto_run on (only assistant_done() completes a reply), server-everything configured with
// `auto_approve` naming `approved`.
json options(const json& approved = json::array()) {
  json everything = {
      {"command", "node"}, {"args", {everything_index(), "stdio"}}, {"auto_approve", approved}};
  return json{{"auto_run", true},
              {"auto_run_idle_ms", 600000},
              {"mcp", {{"servers", {{"everything", everything}}}}}};
}

class McpChat : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = why_no_everything();
    if (!why.empty()) GTEST_SKIP() << why;
  }

  // Waits until the host's tool table holds `tool` (the server listed its tools).
  void wait_for_tool(NvimHarness& nvim, const std::string& tool) {
    if (!wait_for_mcp_tool(nvim, tool)) FAIL() << tool << " never joined the tool table";
  }
};

TEST_F(McpChat, EchoWaitsForApprovalThenRunsAndItsResultIsInTheBuffer) {
  NvimHarness nvim(options());
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  wait_for_tool(nvim, "everything__echo");
  int64_t buf = open_chat(nvim, "echo.chat.md");
  reply(nvim, buf, json_call_block("everything__echo", {{"message", "hello from a chat"}}));

  std::string hint = wait_for_diagnostic(nvim, "? everything__echo awaiting approval");
  EXPECT_NE(hint.find("MCP server everything"), std::string::npos) << hint;
  EXPECT_EQ(barrier(nvim, buf).size(), 0u) << "nothing ran before the approval";

  set_cursor(nvim, row_of(nvim, buf, "```json") + 1);
  nvim.command("ToolRun");
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["tool"], "everything__echo");
  EXPECT_EQ(finished["status"], "succeeded");
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("tool=everything__echo status=succeeded"), std::string::npos) << text;
  EXPECT_NE(text.find("\nEcho: hello from a chat\n"), std::string::npos) << text;
}

// No cache yet (a fresh state dir), and the server held back until the block has been read:
// the block names a tool nobody knows; once the server listed its tools, the buffer is parsed
// again and the block is a call that runs.
TEST_F(McpChat, ABlockReadBeforeTheServerListedItsToolsBecomesACallWhenItHas) {
  char dir[] = "/tmp/toolhost-mcp-gate-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string gate = std::string(dir) + "/open";
  json held = options();
  held["mcp"]["servers"]["everything"]["command"] = "sh";
  held["mcp"]["servers"]["everything"]["args"] = {
      "-c", "while [ ! -e \"$1\" ]; do sleep 0.05; done; exec node \"$0\" stdio",
      everything_index(), gate};
  NvimHarness nvim(held);
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "early.chat.md");
  reply(nvim, buf, json_call_block("everything__echo", {{"message", "early"}}));
  barrier(nvim, buf);
  EXPECT_NE(diagnostics(nvim, buf).dump().find("everything__echo"), std::string::npos)
      << "an unknown tool until the server has listed it";
  std::ofstream(gate).put('\n');
  wait_for_tool(nvim, "everything__echo");
  barrier(nvim, buf);
  EXPECT_EQ(diagnostics(nvim, buf).dump().find("unknown tool"), std::string::npos);
  set_cursor(nvim, row_of(nvim, buf, "```json") + 1);
  nvim.command("ToolRun");
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["tool"], "everything__echo");
  EXPECT_EQ(finished["status"], "succeeded");
  barrier(nvim, buf);
  EXPECT_NE(text_of(nvim, buf).find("\nEcho: early\n"), std::string::npos) << text_of(nvim, buf);
  std::filesystem::remove_all(dir);
}

TEST_F(McpChat, AnAutoApprovedLongRunningToolStreamsItsProgressAndCancelStopsIt) {
  NvimHarness nvim(options({"trigger-long-running-operation"}));
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobStarted", "ToolhostJobOutput",
                       "ToolhostJobFinished"});
  wait_for_tool(nvim, "everything__trigger-long-running-operation");
  int64_t buf = open_chat(nvim, "long.chat.md");
  reply(nvim, buf,
        json_call_block("everything__trigger-long-running-operation",
                        {{"duration", 60}, {"steps", 60}}));

  // auto_approve names it: it runs at once, no approval.
  json started = wait_event(nvim, "ToolhostJobStarted");
  EXPECT_EQ(started["tool"], "everything__trigger-long-running-operation");
  std::string streamed;
  while (streamed.find("progress 2/60") == std::string::npos) {
    json output = wait_event(nvim, "ToolhostJobOutput");
    streamed.clear();
    for (const auto& line : output["lines"]) streamed += line.get<std::string>() + "\n";
  }
  EXPECT_NE(streamed.find("progress 1/60"), std::string::npos) << streamed;

  set_cursor(nvim, row_of(nvim, buf, "```json") + 1);
  nvim.command("ToolCancel");
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "canceled");
  EXPECT_LT(finished["duration"].get<double>(), 30.0);
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("tool=everything__trigger-long-running-operation status=canceled"),
            std::string::npos)
      << text;
  // The server is told, and the host still answers for it.
  json servers = mcp_servers(nvim);
  EXPECT_EQ(servers["servers"][0]["name"], "everything");
  EXPECT_EQ(servers["servers"][0]["state"], "running");
}

TEST_F(McpChat, ArgumentsTheSchemaRefusesFailTheCallNamingTheParameter) {
  NvimHarness nvim(options({"echo"}));
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  wait_for_tool(nvim, "everything__echo");
  int64_t buf = open_chat(nvim, "bad.chat.md");
  reply(nvim, buf, json_call_block("everything__echo", {{"message", 42}}));
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "failed");
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("message"), std::string::npos) << text;
  EXPECT_NE(text.find("status=failed"), std::string::npos) << text;
}

}  // namespace
}  // namespace toolhost::e2e
