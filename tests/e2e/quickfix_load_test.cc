// The quickfix list under load and its worker (issue #39), end to end: a long build log whole
// in the list soon after the job ends, the default caps, items while the job still runs, and a
// worker that cannot start.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "e2e/quickfix_helpers.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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
