// The MCP config files are read again on every reload (setup(), DirChanged, an acceptance, a
// config file written in Neovim);
// what they are warned about is said when it is new, not on every reload.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// How many messages vim.notify showed that mention `${input:`, once the host has answered
// everything sent before (its feedback applied).
int input_warnings(NvimHarness& nvim) {
  barrier(nvim);
  return nvim.lua("return _G.input_warnings").get<int>();
}

// Counts vim.notify's messages that mention `${input:` in _G.input_warnings, and defines
// _G.write_config(token): the user's toolhost/mcp.json with one server whose env holds `token`,
// written with "${input:token}" (a warning) at once; makes ./sub, a second project root.
void watch_input_warnings(NvimHarness& nvim) {
  nvim.lua(R"(
    _G.input_warnings = 0
    vim.notify = function(msg)
      if tostring(msg):find("${input:", 1, true) then _G.input_warnings = _G.input_warnings + 1 end
    end
    local dir = vim.env.XDG_CONFIG_HOME .. "/toolhost"
    vim.fn.mkdir(dir, "p")
    _G.write_config = function(token)
      vim.fn.writefile({ vim.fn.json_encode({ servers = { vscode = {
        command = "true", env = { TOKEN = token } } } }) }, dir .. "/mcp.json")
    end
    _G.write_config("${input:token}")
    vim.fn.mkdir("sub", "p")
  )");
}

TEST(McpConfigWarnings, AFileWarningIsShownOnceWhateverReloadsTheFiles) {
  NvimHarness nvim;
  watch_input_warnings(nvim);
  nvim.command("cd sub");  // a new project root: the files are read again
  ASSERT_EQ(input_warnings(nvim), 1) << "the first reload that finds the file says it";
  nvim.command("cd ..");
  nvim.lua("require('toolhost').setup({})");
  EXPECT_EQ(input_warnings(nvim), 1) << "DirChanged and setup() read it again, and say nothing";
}

TEST(McpConfigWarnings, AWarningFixedAndBroughtBackIsShownAgain) {
  NvimHarness nvim;
  watch_input_warnings(nvim);
  nvim.command("cd sub");
  ASSERT_EQ(input_warnings(nvim), 1);
  nvim.lua("_G.write_config('fixed')");
  nvim.command("cd ..");
  EXPECT_EQ(input_warnings(nvim), 1) << "fixed: nothing to say";
  nvim.lua("_G.write_config('${input:token}')");
  nvim.command("cd sub");
  EXPECT_EQ(input_warnings(nvim), 2) << "broken again: said again";
}

TEST(McpConfigWarnings, AConfigFileWrittenInNeovimIsReadAgainAtOnce) {
  NvimHarness nvim;
  watch_input_warnings(nvim);
  nvim.command("cd sub");
  ASSERT_EQ(input_warnings(nvim), 1);
  // The user edits the file in Neovim and writes it: the new mistake is said, with no setup()
  // or :cd after it.
  nvim.command("edit " + nvim.lua("return vim.env.XDG_CONFIG_HOME").get<std::string>() +
               "/toolhost/mcp.json");
  nvim.command("%s/input:token/input:other/");
  nvim.command("write");
  EXPECT_EQ(input_warnings(nvim), 2) << "the file written was not read again";
}

TEST(McpConfigWarnings, SetupsOwnErrorsAreShownAgainOnEachSetup) {
  NvimHarness nvim;
  nvim.lua(R"(
    _G.setup_errors = 0
    vim.notify = function(msg)
      if tostring(msg):find("mcp.servers.broken", 1, true) then
        _G.setup_errors = _G.setup_errors + 1
      end
    end
  )");
  const json opts = {{"binary", toolhost_binary()},
                     {"mcp", {{"servers", {{"broken", json::object()}}}}}};
  const char* setup = "require('toolhost').setup(...)";
  nvim.lua(setup, json::array({opts}));
  barrier(nvim);
  ASSERT_EQ(nvim.lua("return _G.setup_errors"), 1);
  nvim.lua(setup, json::array({opts}));
  barrier(nvim);
  EXPECT_EQ(nvim.lua("return _G.setup_errors"), 2);
}

}  // namespace
}  // namespace toolhost::e2e
