// Lua's job mirror (toolhost.jobs()) after a host start with a long history: the host sends
// it in pages of at most 64 records (session::Feedback::all_jobs), and the mirror ends up
// listing every job, with the state of a job that finished meanwhile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/jobs_helpers.h"

namespace toolhost::e2e {
namespace {

constexpr int kHistoryJobs = 300;

void write_history(NvimHarness& nvim, int jobs) {
  json dirs = nvim.lua("return require('toolhost.host').dirs()");
  const std::string state = dirs["state"];
  std::filesystem::create_directories(state);
  std::ofstream history(state + "/history.jsonl");
  for (int n = 1; n <= jobs; ++n) {
    history << json{{"ev", "ended"},
                    {"id", "th-" + std::to_string(n)},
                    {"tool", "run_terminal_command"},
                    {"status", "succeeded"},
                    {"exit_code", 0}}
                   .dump()
            << "\n";
  }
}

// Forwards, as notification "page", each applied page's size and whether it was the last.
void forward_pages(NvimHarness& nvim) {
  nvim.listen("page");
  nvim.after_each_batch(R"(function(chan, batch)
    if batch and batch.all_jobs then
      local page = batch.all_jobs_page or { last = true }
      vim.rpcnotify(chan, "page", { size = #batch.all_jobs, last = page.last })
    end
  end)");
}

// Waits for the last page and for pages of `records` in all; returns their sizes. The hook
// runs once a list's diagnostics refresh is done (ui.after_list), which may wait for a list
// that touched the chat buffer: a page of such a list can be heard after the last page (seen
// on Neovim 0.12 in a loaded ctest). A page that never comes fails the wait.
std::vector<size_t> wait_pages(NvimHarness& nvim, size_t records) {
  std::vector<size_t> sizes;
  size_t total = 0;
  bool last = false;
  while (!last || total < records) {
    json page = nvim.wait_for("page");
    sizes.push_back(page["size"]);
    total += sizes.back();
    last = last || page["last"] == true;
  }
  return sizes;
}

TEST(JobsMirrorPaging, ALongHistoryArrivesInPagesAndJobsListsItAll) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  forward_pages(nvim);
  write_history(nvim, kHistoryJobs);
  // Opening the chat starts the host, whose setup() pages the history; the job run right
  // away finishes while the pages come or after them: either way it is listed as it ended.
  nvim.open_fixture("bash_block.chat.md", "paging.chat.md");
  json finished = run_block(nvim, 5);
  ASSERT_EQ(finished["status"], "succeeded");
  std::vector<size_t> sizes = wait_pages(nvim, kHistoryJobs);
  size_t total = 0;
  for (size_t size : sizes) {
    EXPECT_LE(size, 64u);
    total += size;
  }
  EXPECT_GE(sizes.size(), 5u);  // 300 records, 64 a page
  EXPECT_GE(total, static_cast<size_t>(kHistoryJobs));

  json jobs = nvim.lua(R"(
    return vim.tbl_map(function(j) return { j.id, j.status } end,
                       require("toolhost").jobs({ all = true }))
  )");
  ASSERT_EQ(jobs.size(), static_cast<size_t>(kHistoryJobs + 1));
  EXPECT_EQ(jobs[0], json::array({finished["id"], "succeeded"}));
  EXPECT_EQ(jobs.back(), json::array({"th-1", "succeeded"}));

  // After a restart the mirror is paged again and still lists every job once.
  nvim.lua("require('toolhost').restart()");
  wait_pages(nvim, kHistoryJobs + 1);  // the history holds the job run above too
  json again = nvim.lua("return #require('toolhost').jobs({ all = true })");
  EXPECT_EQ(again, kHistoryJobs + 1);
}

}  // namespace
}  // namespace toolhost::e2e
