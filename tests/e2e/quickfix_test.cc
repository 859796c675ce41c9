// Build output into the quickfix list and diagnostics (issue #39), end to end: a real Neovim,
// the real host, real `make` and `gcc` through :ToolRun of a shell block in a chat buffer, and
// the host's own headless Neovim parsing with Neovim's errorformat engine.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "e2e/quickfix_helpers.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(Quickfix, MakeAndGccOutputFillsTheCallsListWithoutTakingOverTheUsersList) {
  NvimHarness nvim;
  int64_t chat = open_build_chat(nvim);
  // The user's own list is current; a.c is loaded in a window, sub/b.c is not.
  nvim.lua("vim.fn.setqflist({}, ' ', { title = 'mine', lines = { 'x.c:1:1: mine' } })");
  nvim.command("vsplit a.c");
  nvim.command("wincmd p");
  json done = run_build(nvim);
  const std::string job = done["job"];
  json list = list_of(nvim, job);
  ASSERT_TRUE(list.is_object()) << job;
  EXPECT_EQ(list["title"], "toolhost: make -k (#" + job + ")");
  EXPECT_EQ(list["context"]["toolhost"]["call"], done["call"]);
  EXPECT_EQ(list["context"]["toolhost"]["job"], job);
  json items = json::array();
  for (const auto& item : list["items"]) {
    items.push_back({item["file"], item["lnum"], item["col"], item["type"]});
  }
  // make's directory stack puts b.c in sub/; gcc's notes keep their own type.
  EXPECT_EQ(items, json::parse(R"([["a.c",3,10,"e"],["a.c",3,10,"n"],["a.c",2,7,"w"],
                                   ["sub/b.c",1,22,"e"],["sub/b.c",1,22,"n"]])"))
      << list["items"].dump();
  // Not current, no window: the user's list and layout are as they were.
  EXPECT_EQ(nvim.lua("return vim.fn.getqflist({ nr = 0, title = 1 }).title"), "mine");
  EXPECT_EQ(nvim.lua(R"lua(
    return #vim.tbl_filter(function(w) return w.quickfix == 1 end, vim.fn.getwininfo())
  )lua"),
            0);
  (void)chat;
}

TEST(Quickfix, DiagnosticsShowInALoadedFileAndInOneOpenedLater) {
  NvimHarness nvim;
  open_build_chat(nvim);
  nvim.command("vsplit a.c");
  nvim.command("wincmd p");
  run_build(nvim);
  json a = qf_diagnostics(nvim, "a.c");
  ASSERT_EQ(a.size(), 3u) << a.dump();
  EXPECT_EQ(a[0], json::parse(R"({"lnum":1,"col":6,"severity":2,"source":"make",
                                  "message":"unused variable ‘unused’ [-Wunused-variable]"})"))
      << a.dump();
  EXPECT_EQ(a[1]["severity"], 1);  // the error
  EXPECT_EQ(a[2]["severity"], 4);  // its note: a hint
  // sub/b.c was never loaded: its diagnostics are stored, and shown (a handler sees them) only
  // once it is opened.
  EXPECT_EQ(nvim.lua("return vim.fn.bufloaded('sub/b.c')"), 0);
  json b = qf_diagnostics(nvim, "sub/b.c");
  ASSERT_EQ(b.size(), 2u) << b.dump();
  EXPECT_EQ(b[0]["severity"], 1);
  EXPECT_EQ(b[1]["severity"], 4);
  nvim.command("edit sub/b.c");
  EXPECT_EQ(nvim.lua(R"lua(
    local buf = vim.api.nvim_get_current_buf()
    return vim.wait(5000, function() return (_G.qf_shown[buf] or 0) == 2 end, 10)
  )lua"),
            true);
}

TEST(Quickfix, ARerunReplacesTheListAndItsDiagnostics) {
  NvimHarness nvim;
  open_build_chat(nvim);
  json first = run_build(nvim);
  const int lists_before = toolhost_lists(nvim);
  EXPECT_EQ(lists_before, 1);
  // The fix for a.c's error: the re-run's list has b.c's only.
  nvim.lua("vim.fn.writefile({ 'int main(void) { return 0; }' }, 'a.c')");
  json second = run_build(nvim, /*force=*/true);
  ASSERT_NE(second["job"], first["job"]);
  EXPECT_EQ(second["call"], first["call"]);
  EXPECT_EQ(toolhost_lists(nvim), 1);
  EXPECT_TRUE(list_of(nvim, first["job"]).is_null());
  json list = list_of(nvim, second["job"]);
  ASSERT_TRUE(list.is_object());
  ASSERT_EQ(list["items"].size(), 2u) << list["items"].dump();
  EXPECT_EQ(list["items"][0]["file"], "sub/b.c");
  EXPECT_EQ(qf_diagnostics(nvim, "a.c").size(), 0u);
  EXPECT_EQ(qf_diagnostics(nvim, "sub/b.c").size(), 2u);
}

TEST(Quickfix, WipingTheChatClearsItsCallsDiagnosticsAndKeepsTheList) {
  NvimHarness nvim;
  int64_t chat = open_build_chat(nvim);
  json done = run_build(nvim);
  EXPECT_EQ(qf_diagnostics(nvim, "a.c").size(), 3u);
  nvim.command("enew");
  nvim.command("bwipeout! " + std::to_string(chat));
  EXPECT_EQ(qf_diagnostics(nvim, "a.c").size(), 0u);
  EXPECT_EQ(qf_diagnostics(nvim, "sub/b.c").size(), 0u);
  EXPECT_EQ(list_of(nvim, done["job"])["items"].size(), 5u);
}

TEST(Quickfix, ToolQuickfixOpensTheListAndRecreatesOnePushedOffTheStack) {
  NvimHarness nvim;
  open_build_chat(nvim);
  json done = run_build(nvim);
  const std::string job = done["job"];
  nvim.lua("vim.fn.setqflist({}, ' ', { nr = '$', title = 'later' })");
  nvim.command("ToolQuickfix");
  EXPECT_EQ(nvim.lua("return vim.fn.getqflist({ nr = 0, title = 1 }).title"),
            "toolhost: make -k (#" + job + ")");
  EXPECT_EQ(nvim.lua("return vim.bo.buftype"), "quickfix");
  nvim.command("cclose");
  // Ten newer lists push it off the 10-deep stack.
  nvim.lua("for i = 1, 10 do vim.fn.setqflist({}, ' ', { nr = '$', title = 'l' .. i }) end");
  EXPECT_TRUE(list_of(nvim, job).is_null());
  nvim.command("ToolQuickfix " + job);
  EXPECT_EQ(nvim.lua("return vim.fn.getqflist({ nr = 0, title = 1 }).title"),
            "toolhost: make -k (#" + job + ")");
  EXPECT_EQ(nvim.lua("return #vim.fn.getqflist()"), 5);
  EXPECT_EQ(nvim.lua("return vim.bo.buftype"), "quickfix");
}

TEST(Quickfix, PastTheCapTheListEndsWithTheFullLogsPath) {
  NvimHarness nvim(json{{"quickfix", {{"max_items", 2}}}});
  open_build_chat(nvim);
  json done = run_build(nvim);
  json list = list_of(nvim, done["job"]);
  ASSERT_TRUE(list.is_object());
  ASSERT_EQ(list["items"].size(), 3u) << list["items"].dump();
  const std::string last = list["items"][2]["text"];
  EXPECT_EQ(last.rfind("truncated; full log: ", 0), 0u) << last;
  EXPECT_NE(last.find("/jobs/" + done["job"].get<std::string>() + ".log"), std::string::npos)
      << last;
  EXPECT_EQ(list["items"][2]["valid"], 0);
}

TEST(Quickfix, DiagnosticsCanBeTurnedOff) {
  NvimHarness nvim(json{{"quickfix", {{"diagnostics", false}}}});
  open_build_chat(nvim);
  json done = run_build(nvim);
  EXPECT_EQ(list_of(nvim, done["job"])["items"].size(), 5u);
  EXPECT_EQ(qf_diagnostics(nvim, "a.c").size(), 0u);
}

TEST(Quickfix, ACommandWithoutAKnownFormatGetsNoList) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("bash_block.chat.md", "run.chat.md");
  (void)buf;
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobFinished");
  // A barrier through the host: a list would have come in a batch before this answer.
  nvim.lua("require('toolhost.host').call('toolhost.ping', {}, function() vim.g.pinged = 1 end)");
  EXPECT_EQ(nvim.lua("return vim.wait(5000, function() return vim.g.pinged == 1 end, 10)"), true);
  EXPECT_EQ(toolhost_lists(nvim), 0);
}

}  // namespace
}  // namespace toolhost::e2e
