// The MCP config files are read again on every reload (setup(), DirChanged, an acceptance);
// what they are warned about is said once per host, not once per reload.
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

TEST(McpConfigWarnings, AFileWarningIsShownOnceWhateverReloadsTheFiles) {
  NvimHarness nvim;
  nvim.lua(R"(
    _G.input_warnings = 0
    local notify = vim.notify
    vim.notify = function(msg, ...)
      if tostring(msg):find("${input:", 1, true) then _G.input_warnings = _G.input_warnings + 1 end
      return notify(msg, ...)
    end
    local dir = vim.env.XDG_CONFIG_HOME .. "/toolhost"
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile({ vim.fn.json_encode({ servers = { vscode = {
      command = "true", env = { TOKEN = "${input:token}" } } } }) }, dir .. "/mcp.json")
    vim.fn.mkdir("sub", "p")
  )");
  nvim.command("cd sub");  // a new project root: the files are read again
  ASSERT_EQ(input_warnings(nvim), 1) << "the first reload that finds the file says it";
  nvim.command("cd ..");
  nvim.lua("require('toolhost').setup({})");
  EXPECT_EQ(input_warnings(nvim), 1) << "DirChanged and setup() read it again, and say nothing";
}

}  // namespace
}  // namespace toolhost::e2e
