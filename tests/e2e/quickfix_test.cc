// Build output into the quickfix list and diagnostics (issue #39), end to end: a real Neovim,
// the real host, real `make` and `gcc` through :ToolRun of a shell block in a chat buffer, and
// the host's own headless Neovim parsing with Neovim's errorformat engine.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The build project (a.c, sub/b.c and their Makefiles) and its chat, in Neovim's cwd; Neovim
// tells the test each time a toolhost list is complete ("qf_done", with the list's job).
int64_t open_build_chat(NvimHarness& nvim, const std::string& chat = "build.chat.md") {
  fs::copy(fs::path(TOOLHOST_FIXTURES) / "quickfix/project", nvim.temp_dir(),
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  nvim.listen("qf_done");
  // What is shown: every display of diagnostics goes through the handlers.
  nvim.lua(R"lua(
    _G.qf_shown = {}
    vim.diagnostic.handlers.qf_test = {
      show = function(ns, buf, diagnostics)
        if vim.api.nvim_get_namespaces()[ "toolhost" ] ~= ns then
          local n = 0
          for _, d in ipairs(diagnostics) do
            if d.source ~= "toolhost" then n = n + 1 end
          end
          _G.qf_shown[buf] = n
        end
      end,
      hide = function() end,
    }
  )lua");
  nvim.lua(R"lua(
    local chan, told = ..., {}
    vim.api.nvim_create_autocmd("QuickFixCmdPost", {
      pattern = "toolhost",
      callback = function()
        local lists = require("toolhost").quickfix_lists()
        local last = lists[#lists]
        if last and last.done and not told[last.job] then
          told[last.job] = true
          vim.rpcnotify(chan, "qf_done", { job = last.job, call = last.call })
        end
      end,
    })
  )lua",
           json::array({nvim.channel()}));
  return nvim.open_fixture("quickfix/" + chat, "build.chat.md");
}

// Runs the block at row 5 (1-based) and waits for its list; returns {job, call}.
json run_build(NvimHarness& nvim, bool force = false) {
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command(force ? "ToolRun!" : "ToolRun");
  return nvim.wait_for("qf_done");
}

// The list of `job` in the stack, with its items' file names relative to Neovim's cwd.
json list_of(NvimHarness& nvim, const std::string& job) {
  return nvim.lua(R"lua(
    local job = ...
    for nr = 1, vim.fn.getqflist({ nr = "$" }).nr do
      local l = vim.fn.getqflist({ nr = nr, all = 1 })
      if l.title:find("(#" .. job .. ")", 1, true) then
        for _, item in ipairs(l.items) do
          item.file = item.bufnr > 0 and vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":.") or ""
        end
        return l
      end
    end
    return vim.NIL
  )lua",
                  json::array({job}));
}

json qf_diagnostics(NvimHarness& nvim, const std::string& file) {
  return nvim.lua(R"lua(
    local file = ...
    local out, buf = {}, vim.fn.bufnr(file)
    if buf < 0 then return out end
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source ~= "toolhost" then
        out[#out + 1] = { lnum = d.lnum, col = d.col, severity = d.severity, source = d.source,
                          message = d.message }
      end
    end
    table.sort(out, function(a, b) return a.lnum * 1000 + a.col < b.lnum * 1000 + b.col or
      (a.lnum == b.lnum and a.col == b.col and a.severity < b.severity) end)
    return out
  )lua",
                  json::array({file}));
}

int toolhost_lists(NvimHarness& nvim) {
  return nvim
      .lua(R"lua(
    local n = 0
    for nr = 1, vim.fn.getqflist({ nr = "$" }).nr do
      if vim.fn.getqflist({ nr = nr, title = 1 }).title:find("^toolhost: ") then n = n + 1 end
    end
    return n
  )lua")
      .get<int>();
}

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

namespace toolhost::e2e {
namespace {

// A 10,000-line gcc log over 100 files (5,000 diagnostics, each with a context line), printed
// by make: every item reaches the list, and the test reports the time from the job's end (as
// Neovim heard of it) to the list complete, and the worker's start-up from the host's log.
// The time from the job's end (as Neovim heard of it) to its list complete, in ms, for make
// printing a 10,000-line gcc log over 100 files (5,000 warnings, each with a context line).
double time_big_log(NvimHarness& nvim, json& list) {
  open_build_chat(nvim);
  {
    std::ofstream log(nvim.temp_dir() + "/big.log");
    for (int i = 1; i <= 5000; ++i) {
      log << "src/f" << i % 100 << ".c:" << i << ":3: warning: unused variable 'v" << i
          << "' [-Wunused-variable]\n"
          << "  " << i << " |   int v" << i << ";\n";
    }
  }
  std::ofstream(nvim.temp_dir() + "/Makefile") << "all:\n\t@cat big.log >&2\n";
  nvim.lua(R"lua(
    vim.api.nvim_create_autocmd("User", { pattern = "ToolhostJobFinished", callback = function()
      _G.qf_job_end = vim.loop.hrtime()
    end })
    vim.api.nvim_create_autocmd("QuickFixCmdPost", { pattern = "toolhost", callback = function()
      local lists = require("toolhost").quickfix_lists()
      if lists[#lists] and lists[#lists].done and not _G.qf_complete then
        _G.qf_complete = vim.loop.hrtime()
      end
    end })
  )lua");
  json done = run_build(nvim);
  list = list_of(nvim, done["job"]);
  return nvim.lua("return (_G.qf_complete - _G.qf_job_end) / 1e6").get<double>();
}

std::string worker_startup(NvimHarness& nvim) {
  std::string startup;
  std::ifstream host_log(nvim.temp_dir() + "/XDG_CACHE_HOME/nvim/toolhost/toolhost.log");
  for (std::string line; std::getline(host_log, line);) {
    if (line.find("errorformat worker") != std::string::npos)
      startup = line.substr(line.find("quickfix:"));
  }
  return startup;
}

// Every item reaches the list; the test reports the time and the worker's start-up.
TEST(QuickfixLoad, ATenThousandLineLogIsWholeInTheListSoonAfterTheJobEnds) {
  NvimHarness nvim(json{{"quickfix", {{"max_items", 100000}, {"diagnostics", false}}}});
  json list;
  const double ms = time_big_log(nvim, list);
  ASSERT_TRUE(list.is_object());
  EXPECT_EQ(list["items"].size(), 5000u);
  EXPECT_EQ(list["items"][4999]["lnum"], 5000);
  std::printf("[quickfix] 10,000 lines, 5,000 items: job end -> list complete %.1f ms; %s\n", ms,
              worker_startup(nvim).c_str());
}

// With the default caps the parse stops at the 1,000th item, and the list ends with the log.
TEST(QuickfixLoad, TheDefaultCapsEndTheListAtItsThousandthItem) {
  NvimHarness nvim;
  json list;
  const double ms = time_big_log(nvim, list);
  ASSERT_TRUE(list.is_object());
  ASSERT_EQ(list["items"].size(), 1001u);
  EXPECT_EQ(list["items"][999]["lnum"], 1000);
  EXPECT_EQ(list["items"][1000]["text"].get<std::string>().rfind("truncated; full log: ", 0), 0u);
  std::printf(
      "[quickfix] 10,000 lines, capped at 1,000 items (diagnostics on): job end -> list "
      "complete %.1f ms\n",
      ms);
}

}  // namespace
}  // namespace toolhost::e2e

namespace toolhost::e2e {
namespace {

// The list fills while the job runs: gcc's items are there while make still waits (on a
// `tail -f`), and the list completes when the job is canceled.
TEST(QuickfixStreaming, ItemsArriveWhileTheJobStillRuns) {
  NvimHarness nvim;
  open_build_chat(nvim);
  std::ofstream(nvim.temp_dir() + "/Makefile")
      << "all:\n\t-gcc -Wall -c a.c -o /dev/null\n\t@tail -f /dev/null\n";
  nvim.listen("qf_running");
  nvim.lua(R"lua(
    local chan = ...
    vim.api.nvim_create_autocmd("QuickFixCmdPost", { pattern = "toolhost", callback = function()
      local lists = require("toolhost").quickfix_lists()
      local last = lists[#lists]
      local job = last and require("toolhost.ui").jobs[last.job]
      if last and #last.items > 0 and job and job.status == "running" and not _G.told_running then
        _G.told_running = true
        vim.rpcnotify(chan, "qf_running", { job = last.job, items = #last.items })
      end
    end })
  )lua",
           json::array({nvim.channel()}));
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json running = nvim.wait_for("qf_running");
  // The last item waits for a next line or the end: a `%C` line may still complete it.
  EXPECT_EQ(running["items"], 2);
  nvim.command("ToolCancel " + running["job"].get<std::string>());
  json done = nvim.wait_for("qf_done");
  EXPECT_EQ(done["job"], running["job"]);
  EXPECT_EQ(list_of(nvim, done["job"])["items"].size(), 3u);
}

}  // namespace
}  // namespace toolhost::e2e

namespace toolhost::e2e {
namespace {

// A worker that cannot start: the call runs and gets its result, no list is made, and one
// message says why.
TEST(QuickfixWorker, AWorkerThatCannotStartMeansNoListAndOneMessage) {
  NvimHarness nvim;
  nvim.forward_notify();
  nvim.forward_user_event("ToolhostJobFinished");
  open_build_chat(nvim);
  nvim.lua(R"lua(
    local host = require("toolhost.host")
    local args = host.setup_args()
    args.progpath = "/nonexistent/nvim"
    vim.rpcnotify(assert(host.ensure()), "toolhost.setup", args)
  )lua");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json notice = nvim.wait_for("notify");
  EXPECT_NE(notice.dump().find("no quickfix list for th-"), std::string::npos) << notice.dump();
  EXPECT_NE(notice.dump().find("cannot start /nonexistent/nvim"), std::string::npos)
      << notice.dump();
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "failed");
  EXPECT_EQ(toolhost_lists(nvim), 0);
}

}  // namespace
}  // namespace toolhost::e2e
