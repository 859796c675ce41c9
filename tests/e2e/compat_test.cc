// What differs between the Neovim versions the suite runs on (SPEC 11), seen as a user sees it:
// ctest runs this file, like every end-to-end test, on 0.7, 0.10 and the newest Debian ships.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Every part of the plugin a user meets in a session, then :messages: a deprecated call prints
// "… is deprecated" there once (0.12 warns of vim.tbl_islist, for one), and nothing else should.
TEST(Compat, NothingThePluginDoesIsReportedAsDeprecated) {
  // A list option: its check is where 0.12 warned of vim.tbl_islist.
  NvimHarness nvim(json{{"allow", {{"commands", json::array({"ls", json::array({"git", "status"})})}}}});
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.open_fixture("bash_block.chat.md", "compat.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");  // inside the fence
  nvim.command("ToolRun");
  EXPECT_EQ(nvim.wait_for("ToolhostJobFinished")["status"], "succeeded");
  nvim.lua(R"(
    local toolhost = require("toolhost")
    for _, format in ipairs({ "openai", "anthropic", "mcp" }) do toolhost.tools({ format = format }) end
  )");
  for (const char* command : {"ToolJobs", "close", "ToolMcp", "close", "ToolOutput", "close"}) {
    nvim.lua("pcall(vim.cmd, ...)", json::array({command}));
  }
  std::string report = nvim.checkhealth("toolhost");
  EXPECT_EQ(report.find("ERROR"), std::string::npos) << report;
  std::string messages = nvim.lua("return vim.fn.execute('messages')").get<std::string>();
  EXPECT_EQ(messages.find("deprecated"), std::string::npos) << messages;
}

// features.lua's checks match what this Neovim does, not only its number.
TEST(Compat, FeatureChecksMatchTheRunningNeovim) {
  NvimHarness nvim;
  json features = nvim.lua(R"(
    local f = require("toolhost.features")
    local buf = vim.api.nvim_get_current_buf()
    local ns = vim.api.nvim_create_namespace("compat")
    local invalidate = pcall(vim.api.nvim_buf_set_extmark, buf, ns, 0, 0, { invalidate = true })
    return {
      invalidate = f.has_extmark_invalidate, invalidate_works = invalidate,
      stdpath_state = f.has_stdpath_state,
      stdpath_state_works = (pcall(vim.fn.stdpath, "state")),
      virtual_text_off = f.diagnostic_virtual_text_off_by_default,
      virtual_text_off_here = not vim.diagnostic.config().virtual_text, -- the harness's is untouched
      islist = f.islist({ 1, 2 }) and not f.islist({ a = 1 }),
    }
  )");
  EXPECT_EQ(features["invalidate"], features["invalidate_works"]) << features.dump();
  EXPECT_EQ(features["stdpath_state"], features["stdpath_state_works"]) << features.dump();
  EXPECT_EQ(features["islist"], true) << features.dump();
  EXPECT_EQ(features["virtual_text_off"], features["virtual_text_off_here"]) << features.dump();
}

}  // namespace
}  // namespace toolhost::e2e
