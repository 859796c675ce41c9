// lua/toolhost/mcp_trust.lua in a real Neovim: each pending project MCP file is shown whole
// (every command) and only an "Accept" answer records it; a headless Neovim asks nothing.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Two pending files; the answer for a prompt mentioning "rm" is "Not now", the other "Accept".
constexpr const char* kAsk = R"(
  local chan, ui = ...
  local trust = require("toolhost.mcp_trust")
  if ui then
    trust.can_ask = function() return true end
  end
  local asked, recorded = {}, {}
  trust.confirm = function(text, choices, default)
    table.insert(asked, { text = text, choices = choices, default = default })
    return text:find("rm %-rf") and 2 or 1
  end
  local pending = {
    { path = "/p/.mcp.json", digest = "d1", prompt = "/p/.mcp.json can start these MCP servers:\n  tools: node srv.js" },
    { path = "/p/.vscode/mcp.json", digest = "d2", prompt = "/p/.vscode/mcp.json can start these MCP servers:\n  x: rm -rf ~" },
  }
  trust.ask(pending, function(file) table.insert(recorded, file.digest) end,
    function(accepted, declined)
      vim.rpcnotify(chan, "answered", { accepted = accepted, declined = declined, asked = asked,
                                        recorded = recorded })
    end)
)";

TEST(McpTrustPrompt, EachFileIsShownWholeAndOnlyAcceptRecordsIt) {
  NvimHarness nvim;
  nvim.listen("answered");
  nvim.lua(kAsk, json::array({nvim.channel(), true}));
  json answered = nvim.wait_for("answered");
  EXPECT_EQ(answered["accepted"], json::array({"/p/.mcp.json"}));
  EXPECT_EQ(answered["declined"], json::array({"/p/.vscode/mcp.json"}));
  EXPECT_EQ(answered["recorded"], json::array({"d1"}));
  ASSERT_EQ(answered["asked"].size(), 2u);
  EXPECT_EQ(answered["asked"][0]["text"],
            "/p/.mcp.json can start these MCP servers:\n  tools: node srv.js");
  EXPECT_EQ(answered["asked"][0]["choices"], "&Accept\n&Not now");
  EXPECT_EQ(answered["asked"][0]["default"], 2);  // Enter does not accept
}

TEST(McpTrustPrompt, AHeadlessNeovimAsksNothingAndAcceptsNothing) {
  NvimHarness nvim;  // no UI attached
  nvim.listen("answered");
  nvim.lua(kAsk, json::array({nvim.channel(), false}));
  json answered = nvim.wait_for("answered");
  EXPECT_EQ(answered["accepted"], json::array());
  EXPECT_EQ(answered["declined"], json::array({"/p/.mcp.json", "/p/.vscode/mcp.json"}));
  EXPECT_EQ(answered["asked"], json::array());
  EXPECT_EQ(answered["recorded"], json::array());
}

TEST(McpTrustPrompt, TheSummaryNamesTheWaitingFilesAndHowToAcceptThem) {
  NvimHarness nvim;
  json summary = nvim.lua(R"(
    local trust = require("toolhost.mcp_trust")
    return { trust.summary({ { path = "/p/.mcp.json" } }), trust.summary({}) or vim.NIL }
  )");
  EXPECT_EQ(summary[0],
            "toolhost: /p/.mcp.json is not accepted yet, so its MCP servers are off: :ToolMcp "
            "accept shows their commands");
  EXPECT_TRUE(summary[1].is_null());
}

}  // namespace
}  // namespace toolhost::e2e
