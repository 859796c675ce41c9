// The notice of an agent's call that awaits approval is one line of the command line: with
// 'cmdheight' 1, a longer message makes Neovim stop at "Press ENTER" (a blocking mode), which
// eats the keys the user types in their own window.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// A command far wider than the screen's 80 columns.
const std::string kLongCommand =
    "rm x && printf '%s\\n' 'a command long enough to wrap the command line of an eighty "
    "column screen more than once, as agents write them'";

void start_user_in_a_file(NvimHarness& nvim) {
  nvim.lua("vim.fn.writefile({ 'keep me' }, 'x') vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.command("edit notes.txt");
  start_host(nvim);
}

TEST(AgentsNotice, ANoticeFitsTheCommandLine) {
  NvimHarness nvim;
  nvim.forward_notify();
  start_user_in_a_file(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->call("run_terminal_command", {{"command", kLongCommand}});
  const std::string notice = wait_notify_with(nvim, "asks:");
  json fits = nvim.lua(
      "local text = ... return { vim.fn.strdisplaywidth(text), vim.v.echospace }",
      json::array({notice}));
  EXPECT_LE(fits[0].get<int>(), fits[1].get<int>()) << notice;
  EXPECT_EQ(notice.rfind("toolhost: claude-code asks: rm x && printf", 0), 0u) << notice;
  const std::string tail = "… (:ToolRun/:ToolReject)";
  EXPECT_EQ(notice.substr(notice.size() - tail.size()), tail) << notice;
}

TEST(AgentsNotice, TheCommandGoesBeforeTheHint) {
  NvimHarness nvim;  // 80 columns: 68 cells for a message
  json notices = nvim.lua(R"(
    local notice = require("toolhost.agents").notice
    return { notice("claude-code", "rm x"), notice("claude-code", "create_or_replace_file made.txt") }
  )");
  EXPECT_EQ(notices[0], "toolhost: claude-code asks: rm x (:ToolRun/:ToolReject)");
  EXPECT_EQ(notices[1], "toolhost: claude-code asks: create_or_replace_file made.txt");
}

TEST(AgentsNotice, NarrowScreensCutTheWholeLine) {
  NvimHarness nvim;
  nvim.command("set columns=40");
  json notice = nvim.lua(R"(
    local text = require("toolhost.agents").notice("claude-code", "rm x")
    return { text, vim.fn.strdisplaywidth(text), vim.v.echospace }
  )");
  EXPECT_LE(notice[1].get<int>(), notice[2].get<int>()) << notice.dump();
  const std::string text = notice[0];
  EXPECT_EQ(text.rfind("toolhost: claude-code asks", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 3), "…") << text;
}

// Neovim at "Press ENTER" answers nvim_get_mode (a fast request) and holds every other request
// until a key comes: `code`'s answer, or nothing when none came within 2 s.
std::optional<json> probe(NvimHarness& nvim, const std::string& code) {
  try {
    return nvim.lua(code, json::array(), std::chrono::seconds(2));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

TEST(AgentsNotice, TheNoticeLeavesNeovimReadyForKeys) {
  NvimHarness nvim;
  // A screen of 80 by 24 with the default 'cmdheight' (1): messages are drawn and can block.
  nvim.request("nvim_ui_attach", json::array({80, 24, json::object()}));
  start_user_in_a_file(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  agent->call("run_terminal_command", {{"command", kLongCommand}});
  // The agent's split shows once its call's notice was given (the same Lua call gives both).
  std::optional<json> shown;
  for (int i = 0; i < 500; ++i) {
    shown = probe(nvim, R"(vim.wait(10)
      return vim.fn.bufwinid("toolhost://agent/claude-code") ~= -1)");
    if (!shown || *shown == true) break;
  }
  std::optional<json> answered = probe(nvim, "return vim.o.cmdheight");  // after a redraw
  json mode = nvim.request("nvim_get_mode", json::array());
  EXPECT_TRUE(shown && answered) << "Neovim waits for a key: " << mode.dump();
  EXPECT_EQ(mode["blocking"], false) << mode.dump();
  EXPECT_EQ(mode["mode"], "n") << mode.dump();
  if (answered) {
    EXPECT_EQ(*answered, 1);
  }
  if (mode["blocking"] == true) nvim.request("nvim_input", json::array({"<CR>"}));
}

}  // namespace
}  // namespace toolhost::e2e
