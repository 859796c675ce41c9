// The jobs.* queries (jobs.get, jobs.output, jobs.list) through Lua's bridge, and Lua's own
// jobs() mirror against them, through a real Neovim and the real host.
#include <gtest/gtest.h>

#include <uv.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "e2e/jobs_helpers.h"

namespace toolhost::e2e {
namespace {

TEST(JobsQueries, AnswerWithResultsAndClearErrors) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.open_fixture("bash_block.chat.md", "queries.chat.md");
  json finished = run_block(nvim, 5);
  std::string id = finished["id"];

  json got = host_call(nvim, "jobs.get", {{"id", id}});
  ASSERT_TRUE(got["err"].is_null()) << got.dump();
  EXPECT_EQ(got["result"]["id"], id);
  EXPECT_EQ(got["result"]["status"], "succeeded");
  EXPECT_EQ(got["result"]["exit_code"], 0);
  EXPECT_EQ(got["result"]["stdout"]["bytes"], 20);  // "hello from toolhost\n"

  json output = host_call(nvim, "jobs.output", {{"id", id}, {"since", 6}});
  ASSERT_TRUE(output["err"].is_null()) << output.dump();
  EXPECT_EQ(output["result"]["data"], "from toolhost\n");
  EXPECT_EQ(output["result"]["next"], 20);
  EXPECT_EQ(output["result"]["finished"], true);

  json missing = host_call(nvim, "jobs.get", {{"id", "th-999999"}});
  EXPECT_EQ(missing["err"], "no job th-999999");
  json unknown = host_call(nvim, "jobs.nope", json::object());
  EXPECT_EQ(unknown["err"], "unknown method jobs.nope");
}

// toolhost.jobs({ all = true }) (Lua's mirror, no request) lists what jobs.list, and so
// :ToolJobs!, lists.
void expect_jobs_match_jobs_list(NvimHarness& nvim) {
  json listed = host_call(nvim, "jobs.list", json::object());
  ASSERT_TRUE(listed["err"].is_null()) << listed.dump();
  json from_host = json::array();
  for (const auto& job : listed["result"]["jobs"]) {
    from_host.push_back(
        {{"id", job["id"]}, {"status", job["status"]}, {"call_id", job["call_id"]}});
  }
  json from_lua = nvim.lua(R"(
    return vim.tbl_map(function(job)
      return { id = job.id, status = job.status, call_id = job.call_id }
    end, require("toolhost").jobs({ all = true }))
  )");
  EXPECT_EQ(from_lua, from_host);
}

// Waits until `nvim`'s history holds the `ended` line of job `id`: its host writes it a few
// milliseconds after the job's feedback (the held work of a job's end), and a host that starts
// in between reads the job as running. Woken by the file's changes (inotify), not by a timer.
void wait_history_ended(NvimHarness& nvim, const std::string& id) {
  const std::string path =
      nvim.lua("return require('toolhost.host').dirs().state").get<std::string>() +
      "/history.jsonl";
  uv_fs_event_t watch;
  uv_fs_event_init(nvim.loop(), &watch);
  uv_fs_event_start(
      &watch, [](uv_fs_event_t*, const char*, int, int) {}, path.c_str(), 0);
  auto ended = [&] {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      json record = json::parse(line, nullptr, false);
      if (record.is_object() && record.value("id", "") == id && record.value("ev", "") == "ended") {
        return true;
      }
    }
    return false;
  };
  nvim.run_until(ended, std::chrono::seconds(10), "the ended line of " + id + " in " + path);
  uv_close(reinterpret_cast<uv_handle_t*>(&watch), nullptr);
  uv_run(nvim.loop(), UV_RUN_NOWAIT);
}

// History included: the jobs of another Neovim that shares the state dir, known from history
// at each host start, right after a restart too.
TEST(JobsQueries, LuaJobsListsTheSameJobsAsJobsListAlsoAfterARestart) {
  NvimHarness other;
  other.forward_user_event("ToolhostJobFinished");
  other.open_fixture("bash_block.chat.md", "other.chat.md");
  std::string before = run_block(other, 5)["id"];
  wait_history_ended(other, before);

  NvimHarness nvim(json::object(), &other);
  nvim.forward_user_event("ToolhostJobFinished");
  forward_all_jobs(nvim);
  nvim.open_fixture("two_blocks.chat.md", "mine.chat.md");
  wait_all_jobs_with(nvim, before);
  json mine = run_block(nvim, 10);
  ASSERT_EQ(mine["status"], "failed");
  expect_jobs_match_jobs_list(nvim);

  // A job the other Neovim runs now: this host reads it from history when it starts again.
  other.open_fixture("bash_block.chat.md", "other2.chat.md");
  std::string after = run_block(other, 5)["id"];
  wait_history_ended(other, after);
  nvim.lua("require('toolhost').restart()");
  wait_all_jobs_with(nvim, after);
  expect_jobs_match_jobs_list(nvim);
  json ids = nvim.lua(
      "return vim.tbl_map(function(j) return j.id end, require('toolhost').jobs({ all = true }))");
  EXPECT_EQ(ids, json::array({after, mine["id"], before}));
}

}  // namespace
}  // namespace toolhost::e2e
