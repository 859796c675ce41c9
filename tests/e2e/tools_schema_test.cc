// require("toolhost").tools(): the host's tool schemas, custom tools included, in a real Neovim.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(ToolsSchema, LuaGetsEveryToolInTheAskedFormatWithCustomToolsIncluded) {
  NvimHarness nvim;
  json tools = nvim.lua(R"(
    require("toolhost").setup({
      binary = require("toolhost.config").options.binary,
      tools = { lint = { cmd = { "make", "lint" }, description = "Runs the linter" } },
    })
    return require("toolhost").tools({ format = "anthropic" })
  )");
  ASSERT_TRUE(tools.is_array());
  EXPECT_EQ(tools[0]["name"], "run_terminal_command");
  EXPECT_EQ(tools[0]["input_schema"]["required"], json({"command"}));
  EXPECT_EQ(tools.back()["name"], "lint");
  EXPECT_EQ(tools.back()["description"], "Runs the linter");

  json openai = nvim.lua(R"(return require("toolhost").tools())");
  EXPECT_EQ(openai[0]["type"], "function");
}

TEST(ToolsSchema, TheCallbackFormNeverWaitsAndAnUnknownFormatIsAnError) {
  NvimHarness nvim;
  nvim.listen("tools");
  nvim.lua(R"(
    local chan = ...
    require("toolhost").tools({ format = "mcp", callback = function(tools, err)
      vim.rpcnotify(chan, "tools", { count = tools and #tools or 0, first = tools and tools[1], err = err })
    end })
  )",
           json::array({nvim.channel()}));
  json got = nvim.wait_for("tools");
  EXPECT_GT(got["count"].get<int>(), 5);
  EXPECT_TRUE(got["first"].contains("annotations"));

  json bad = nvim.lua(R"(
    local tools, err = require("toolhost").tools({ format = "gemini" })
    return { tools = tools == nil, err = err }
  )");
  EXPECT_EQ(bad["tools"], true);
  EXPECT_NE(bad["err"].get<std::string>().find("unknown format"), std::string::npos);
}

}  // namespace
}  // namespace toolhost::e2e
