// :ToolSendQuickfix and :ToolSendDiagnostics (issue #39 section 2) on a real Neovim: the list or
// the diagnostics become the user's message in the chat, one line per entry, sorted by
// severity then place, paths relative to the chat's root, capped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e/agents_helpers.h"
#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// The chat's rows from `first` on.
Lines rows_from(NvimHarness& nvim, int64_t buf, size_t first) {
  Lines all = nvim.lines(buf);
  return Lines(all.begin() + static_cast<std::ptrdiff_t>(std::min(first, all.size())), all.end());
}

// Writes `lines` as the chat `name` and opens it; a scratch window is then the current one, so
// the chat is found by its window.
int64_t chat_beside(NvimHarness& nvim, const std::string& name, const Lines& lines) {
  nvim.lua("local lines, name = ... vim.fn.writefile(lines, name)", json::array({lines, name}));
  nvim.command("edit " + name);
  const int64_t chat = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  EXPECT_EQ(nvim.lua("return require('toolhost.host').is_attached(...)", json::array({chat})), true);
  nvim.command("new");
  return chat;
}

TEST(SendToChat, AQuickfixListBecomesTheUsersMessageSortedWithContinuationsFolded) {
  NvimHarness nvim;
  const int64_t chat = chat_beside(nvim, "build.chat.md",
                                   {"USER: fix the build", "ASSISTANT: I ran make.", "USER:"});
  nvim.lua(R"(
    local root = vim.fn.getcwd()
    vim.fn.setqflist({}, " ", { title = "make", items = {
      { filename = "src/b.c", lnum = 3, col = 5, type = "w", text = "unused variable x" },
      { filename = "src/a.c", lnum = 10, col = 2, type = "e", text = "expected ';'" },
      { text = "   10 | int x = 1", valid = 0 },
      { text = "      |          ^", valid = 0 },
      { filename = root .. "/src/c.c", lnum = 1, type = "e", nr = 42, text = "no such\nfile" },
    } })
  )");
  nvim.command("ToolSendQuickfix");
  EXPECT_EQ(rows_from(nvim, chat, 2),
            (Lines{"USER: Quickfix list \"make\" (3 entries):",
                   "src/a.c:10:2: error: expected ';' 10 | int x = 1 | ^",
                   "src/c.c:1: error [42]: no such file", "src/b.c:3:5: warning: unused variable x"}));
}

TEST(SendToChat, AListIsNamedByItsCallOrItsNumberAndTheMessageIsCapped) {
  NvimHarness nvim;
  nvim.forward_notify();
  const int64_t chat = chat_beside(nvim, "cap.chat.md", {"USER: go", "ASSISTANT: Done."});
  nvim.lua(R"(
    local items = {}
    for i = 1, 250 do items[i] = { filename = "f.c", lnum = i, type = "e", text = "e" .. i } end
    vim.fn.setqflist({}, " ", { title = "gcc", items = items, context = { toolhost = { call = 17 } } })
    vim.fn.setqflist({}, " ", { title = "other", items = { { filename = "g.c", lnum = 1, text = "x" } } })
  )");
  nvim.command("ToolSendQuickfix 17");  // not the current list: the one of call 17
  Lines added = rows_from(nvim, chat, 2);
  ASSERT_EQ(added.size(), 3u + 200u + 1u) << text_of(nvim, chat);
  EXPECT_EQ(added[0], "");
  EXPECT_EQ(added[1], "USER:");
  EXPECT_EQ(added[2], "Quickfix list \"gcc\" (250 entries):");
  EXPECT_EQ(added[3], "f.c:1: error: e1");
  EXPECT_EQ(added.back(), "… 50 more");

  nvim.command("ToolSendQuickfix 2");  // the second list of the stack
  EXPECT_EQ(nvim.lines(chat).back(), "g.c:1: x");
  nvim.command("ToolSendQuickfix 99");
  for (;;) {
    std::string message = nvim.wait_for("notify")["msg"];
    if (message.find("no quickfix list for \"99\"") != std::string::npos) break;
  }
}

TEST(SendToChat, DiagnosticsGoIntoTheUsersUnfinishedMessageInTheChatsHeadingForm) {
  NvimHarness nvim;
  const int64_t chat = chat_beside(
      nvim, "cc.chat.md", {"## Me", "", "why?", "", "## CodeCompanion", "", "Look.", "", "## Me", "",
                           "see these:", ""});
  nvim.lua(R"(
    vim.fn.mkdir("src", "p")
    vim.fn.writefile({ "a", "b", "c", "d", "e" }, "src/a.c")
    vim.cmd("edit src/a.c")
    local ns = vim.api.nvim_create_namespace("lsp-like")
    vim.diagnostic.set(ns, 0, {
      { lnum = 0, col = 0, severity = vim.diagnostic.severity.WARN, message = "w1", code = "W1" },
      { lnum = 4, col = 2, severity = vim.diagnostic.severity.ERROR, message = "e1\nmore" },
    })
  )");
  nvim.command("ToolSendDiagnostics %");
  EXPECT_EQ(rows_from(nvim, chat, 10),
            (Lines{"see these:", "", "Diagnostics of src/a.c (2):", "src/a.c:5:3: error: e1 more",
                   "src/a.c:1:1: warning [W1]: w1"}));

  // A chat that ends with the assistant's reply gets a new message in its own form.
  const int64_t second =
      chat_beside(nvim, "cc2.chat.md", {"## Me", "", "hi", "", "## CodeCompanion", "", "Hello."});
  nvim.command("buffer " + std::to_string(
                               nvim.lua("return vim.fn.bufnr('src/a.c')").get<int64_t>()));
  nvim.command("ToolSendDiagnostics");
  EXPECT_EQ(rows_from(nvim, second, 7),
            (Lines{"", "## Me", "", "Diagnostics (2):", "src/a.c:5:3: error: e1 more",
                   "src/a.c:1:1: warning [W1]: w1"}));
}

// The same views as tools: an outside agent reads them unasked (they only read), through the
// host of the Neovim that has them.
TEST(SendToChat, AnAgentReadsTheQuickfixListAndTheDiagnosticsAsTools) {
  NvimHarness nvim;
  start_host(nvim);
  nvim.lua(R"(
    vim.fn.setqflist({}, " ", { title = "make", items = {
      { filename = "src/a.c", lnum = 2, col = 1, type = "e", text = "boom" } } })
    vim.fn.mkdir("src", "p")
    vim.fn.writefile({ "a", "b" }, "src/b.c")
    vim.cmd("edit src/b.c")
    vim.diagnostic.set(vim.api.nvim_create_namespace("lsp-like"), 0,
      { { lnum = 1, col = 0, severity = vim.diagnostic.severity.WARN, message = "w" } })
  )");
  auto agent = connect_agent(nvim, "claude-code");
  json quickfix = agent->wait_result(agent->call("get_quickfix", json::object()));
  EXPECT_EQ(quickfix["isError"], false) << quickfix.dump();
  EXPECT_EQ(quickfix["text"], "Quickfix list \"make\" (1 entry):\nsrc/a.c:2:1: error: boom");
  json diagnostics = agent->wait_result(agent->call("get_diagnostics", {{"path", "src/b.c"}}));
  EXPECT_EQ(diagnostics["isError"], false) << diagnostics.dump();
  EXPECT_EQ(diagnostics["text"], "Diagnostics of src/b.c (1):\nsrc/b.c:2:1: warning: w");
  json none = agent->wait_result(agent->call("get_diagnostics", {{"path", "nowhere.c"}}));
  EXPECT_NE(none["text"].get<std::string>().find("nowhere.c is not open in Neovim"),
            std::string::npos)
      << none.dump();
}

}  // namespace
}  // namespace toolhost::e2e
