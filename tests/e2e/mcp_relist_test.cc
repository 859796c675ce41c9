// A server's tool list changing while a chat's auto-run chain runs its tools (issue #37's MCP
// chat flake: server-everything announces tools/list_changed right after every handshake, so
// the host lists again and re-parses every chat at a moment the test does not choose). Here
// the project's fake stdio server (tests/fixtures/mcp/fake_server.sh) announces it on purpose
// from inside the chain: its `change` tool adds a tool and says so before answering.
#include <gtest/gtest.h>

#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/mcp_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

json relist_options() {
  json fake = {{"command", "sh"},
               {"args", {TOOLHOST_FIXTURES "/mcp/fake_server.sh", "ok"}},
               {"auto_approve", {"change", "echo"}}};
  return json{
      {"auto_run", true}, {"auto_run_idle_ms", 600000}, {"mcp", {{"servers", {{"fake", fake}}}}}};
}

Lines change_then_echo() {
  return {"ASSISTANT: Two calls.",
          "",
          "```json",
          json{{"tool", "fake__change"}, {"parameters", json::object()}}.dump(),
          "```",
          "",
          "```json",
          json{{"tool", "fake__echo"}, {"parameters", {{"message", "after the change"}}}}.dump(),
          "```"};
}

TEST(McpRelist, TheChainGoesOnPastACallThatChangesTheToolList) {
  NvimHarness nvim(relist_options());
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished", "ToolhostAllDone"});
  ASSERT_TRUE(wait_for_mcp_tool(nvim, "fake__echo"));
  int64_t buf = open_chat(nvim, "relist.chat.md");
  reply(nvim, buf, change_then_echo());
  json first = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(first["tool"], "fake__change");
  EXPECT_EQ(first["status"], "succeeded");
  json second = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(second["tool"], "fake__echo");
  EXPECT_EQ(second["status"], "succeeded");
  wait_event(nvim, "ToolhostAllDone");
  barrier(nvim, buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("Echo: after the change"), std::string::npos) << text;
}

}  // namespace
}  // namespace toolhost::e2e
