// :ToolJobs, :ToolOutput and the jobs.* queries, through a real Neovim and the real host.
#include <gtest/gtest.h>

#include <algorithm>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Runs the block under row `row` (1-based) and returns the finished job's event.
json run_block(NvimHarness& nvim, int row) {
  nvim.lua("vim.api.nvim_win_set_cursor(0, {...})", json::array({row, 0}));
  nvim.command("ToolRun");
  return nvim.wait_for("ToolhostJobFinished");
}

// Asks the host `method` through Lua's asynchronous bridge; returns {err, result}.
json host_call(NvimHarness& nvim, const std::string& method, const json& args) {
  nvim.listen("answer");
  nvim.lua(R"(
    local chan, method, args = ...
    require("toolhost.host").call(method, args, function(err, result)
      vim.rpcnotify(chan, "answer", { err = err or vim.NIL, result = result or vim.NIL })
    end)
  )",
           json::array({nvim.channel(), method, args}));
  return nvim.wait_for("answer");
}

// Waits until the view `kind` reports an update that satisfies `done`.
json wait_view(
    NvimHarness& nvim, const std::string& kind,
    const std::function<bool(const json&)>& done = [](const json&) { return true; }) {
  for (;;) {
    json update = nvim.wait_for("ToolhostViewUpdated");
    if (update["view"] == kind && done(update)) return update;
  }
}

TEST(JobsView, OutputShowsTheWholeLogWhereTheResultBlockIsCut) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.open_fixture("seq_block.chat.md", "seq.chat.md");
  json finished = run_block(nvim, 5);
  ASSERT_EQ(finished["status"], "succeeded");

  // The cursor is still on the block: :ToolOutput picks its job.
  nvim.command("ToolOutput");
  json update = wait_view(nvim, "output", [](const json& u) { return u["finished"] == true; });
  EXPECT_EQ(update["id"], finished["id"]);
  auto lines = nvim.lines(update["buf"].get<int64_t>());
  ASSERT_EQ(lines.size(), 501u);  // 500 lines and the empty rest after the final newline
  EXPECT_EQ(lines[0], "1");
  EXPECT_EQ(lines[499], "500");
  EXPECT_EQ(lines[500], "");
}

// Regression: jobs.output answered an error for a queued job (no log yet), and the view
// stopped following it; it now shows the output once the job runs.
TEST(JobsView, OutputFollowsAQueuedJobUntilItRuns) {
  NvimHarness nvim(json{{"max_concurrent", 1}, {"kill_grace_ms", 200}});
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.open_fixture("two_blocks.chat.md", "queued.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json first = nvim.wait_for("ToolhostJobStarted");  // `sleep 30`: holds the only slot
  nvim.lua("vim.api.nvim_win_set_cursor(0, {11, 0})");
  nvim.command("ToolRun");
  json queued = host_call(nvim, "jobs.list", {{"status", "queued"}});
  ASSERT_TRUE(queued["err"].is_null()) << queued.dump();
  ASSERT_EQ(queued["result"]["jobs"].size(), 1u) << queued.dump();
  std::string second = queued["result"]["jobs"][0]["id"];

  nvim.command("ToolOutput " + second);
  json waiting = wait_view(nvim, "output");
  EXPECT_EQ(waiting["id"], second);
  EXPECT_FALSE(waiting.contains("error")) << waiting.dump();
  EXPECT_EQ(waiting["offset"], 0);
  EXPECT_EQ(waiting["finished"], false);

  json canceled = host_call(nvim, "jobs.cancel", {{"id", first["id"]}});
  ASSERT_EQ(canceled["result"]["canceled"], true) << canceled.dump();
  json done = wait_view(nvim, "output", [](const json& u) {
    EXPECT_FALSE(u.contains("error")) << u.dump();
    return u["finished"] == true;
  });
  EXPECT_EQ(done["id"], second);
  EXPECT_EQ(nvim.lines(done["buf"].get<int64_t>()), (std::vector<std::string>{"to stderr", ""}));
}

// A running job with nothing new is read again every kFollowMs (200 ms), not in a busy loop
// of jobs.output round trips.
TEST(JobsView, OutputOfAQuietRunningJobIsPolledNotRefetchedAtOnce) {
  NvimHarness nvim(json{{"kill_grace_ms", 200}});
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostViewUpdated");
  // Timestamps taken in Neovim when each update fires, not when this client reads them.
  nvim.lua(R"(
    _G.output_updates = {}
    vim.api.nvim_create_autocmd("User", { pattern = "ToolhostViewUpdated", callback = function()
      local e = vim.g.toolhost_event
      if e.view == "output" then
        table.insert(_G.output_updates, { offset = e.offset, ms = vim.loop.hrtime() / 1e6 })
      end
    end })
  )");
  nvim.open_fixture("two_blocks.chat.md", "quiet.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json started = nvim.wait_for("ToolhostJobStarted");  // `echo started; sleep 30`
  nvim.command("ToolOutput " + started["id"].get<std::string>());
  wait_view(nvim, "output", [](const json& u) { return u["offset"] == 8; });  // "started\n"
  wait_view(nvim, "output");  // read on at once after data: nothing new
  wait_view(nvim, "output");  // the next read, kFollowMs later
  json updates = nvim.lua("return _G.output_updates");
  size_t i = 0;
  while (i < updates.size() && updates[i]["offset"] != 8) ++i;
  ASSERT_GE(updates.size(), i + 3) << updates.dump();
  double gap = updates[i + 2]["ms"].get<double>() - updates[i + 1]["ms"].get<double>();
  EXPECT_GE(gap, 150) << "an empty chunk of a running job was refetched at once: "
                      << updates.dump();
}

TEST(JobsView, ListsJobsNewestFirstWithStatusAndCommand) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.open_fixture("two_blocks.chat.md", "list.chat.md");
  json failed = run_block(nvim, 10);
  ASSERT_EQ(failed["status"], "failed");

  nvim.command("ToolJobs");
  json update = wait_view(nvim, "jobs", [&](const json& u) {
    auto lines = nvim.lines(u["buf"].get<int64_t>());
    return lines.size() >= 3;
  });
  auto lines = nvim.lines(update["buf"].get<int64_t>());
  EXPECT_EQ(lines[0].rfind("toolhost jobs: 1 total, 0 running, 0 queued", 0), 0u) << lines[0];
  std::string row = lines[2];
  EXPECT_EQ(row.rfind(failed["id"].get<std::string>(), 0), 0u) << row;
  EXPECT_NE(row.find("run_terminal_command"), std::string::npos) << row;
  EXPECT_NE(row.find("failed"), std::string::npos) << row;
  EXPECT_NE(row.find("exit 3"), std::string::npos) << row;
}

// The ids the jobs window lists once it has `count` of them, and its title line.
std::pair<json, std::string> jobs_window(NvimHarness& nvim, size_t count) {
  json update = wait_view(nvim, "jobs", [&](const json& u) {
    return nvim.lines(u["buf"].get<int64_t>()).size() == count + 2;
  });
  auto lines = nvim.lines(update["buf"].get<int64_t>());
  json ids = json::array();
  for (size_t i = 2; i < lines.size(); ++i) ids.push_back(lines[i].substr(0, lines[i].find(' ')));
  return {ids, lines[0]};
}

json lua_job_ids(NvimHarness& nvim, bool all) {
  return nvim.lua(
      "return vim.tbl_map(function(j) return j.id end, require('toolhost').jobs({ all = ... }))",
      json::array({all}));
}

// History is shared by every project: :ToolJobs and jobs() list this one's (of the cwd, the
// root), a refused or rejected call's too; :ToolJobs! and jobs({ all = true }) every project's.
TEST(JobsView, ListsThisProjectsJobsAndBangListsEveryProjects) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.lua("vim.fn.mkdir('a') vim.fn.mkdir('b')");
  nvim.command("cd a");
  nvim.open_fixture("bash_block.chat.md", "a.chat.md");
  std::string in_a = run_block(nvim, 5)["id"];
  nvim.command("cd ../b");
  nvim.open_fixture("two_blocks.chat.md", "b.chat.md");
  std::string in_b = run_block(nvim, 10)["id"];
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolReject");
  json rejected = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(rejected["status"], "rejected");
  std::string declined = rejected["id"];

  nvim.command("ToolJobs");
  auto [ids, title] = jobs_window(nvim, 2);
  EXPECT_EQ(ids, json::array({declined, in_b}));
  EXPECT_NE(title.find("toolhost jobs: 2 total, 0 running, 0 queued (" + nvim.temp_dir() + "/b)"),
            std::string::npos)
      << title;
  EXPECT_EQ(lua_job_ids(nvim, false), json::array({declined, in_b}));
  EXPECT_EQ(lua_job_ids(nvim, true), json::array({declined, in_b, in_a}));

  nvim.command("ToolJobs!");
  std::tie(ids, title) = jobs_window(nvim, 3);
  EXPECT_EQ(ids, json::array({declined, in_b, in_a}));
  EXPECT_NE(title.find("toolhost jobs: 3 total, 0 running, 0 queued (all projects)"),
            std::string::npos)
      << title;

  nvim.command("cd ../a");
  nvim.command("ToolJobs");
  std::tie(ids, title) = jobs_window(nvim, 1);
  EXPECT_EQ(ids, json::array({in_a}));
  EXPECT_EQ(lua_job_ids(nvim, false), json::array({in_a}));
}

TEST(JobsView, CancelFromTheJobsWindow) {
  NvimHarness nvim(json{{"kill_grace_ms", 200}});
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.open_fixture("two_blocks.chat.md", "cancel.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json started = nvim.wait_for("ToolhostJobStarted");

  nvim.command("ToolJobs");
  wait_view(nvim, "jobs",
            [&](const json& u) { return nvim.lines(u["buf"].get<int64_t>()).size() >= 3; });
  nvim.lua("vim.api.nvim_win_set_cursor(0, {3, 0})");
  nvim.request("nvim_input", {"c"});
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["id"], started["id"]);
  EXPECT_EQ(finished["status"], "canceled");
}

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

// Forwards, as notification "all_jobs", the ids of every `all_jobs` list ui.apply_all() applied.
void forward_all_jobs(NvimHarness& nvim) {
  nvim.listen("all_jobs");
  nvim.after_each_batch(R"(function(chan, batch)
    if batch and batch.all_jobs then
      vim.rpcnotify(chan, "all_jobs", vim.tbl_map(function(job) return job.id end, batch.all_jobs))
    end
  end)");
}

// Waits until an applied `all_jobs` list holds job `id`.
void wait_all_jobs_with(NvimHarness& nvim, const std::string& id) {
  for (;;) {
    json ids = nvim.wait_for("all_jobs");
    if (std::find(ids.begin(), ids.end(), json(id)) != ids.end()) return;
  }
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

// History included: the jobs of another Neovim that shares the state dir, known from history
// at each host start, right after a restart too.
TEST(JobsQueries, LuaJobsListsTheSameJobsAsJobsListAlsoAfterARestart) {
  NvimHarness other;
  other.forward_user_event("ToolhostJobFinished");
  other.open_fixture("bash_block.chat.md", "other.chat.md");
  std::string before = run_block(other, 5)["id"];

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
  nvim.lua("require('toolhost').restart()");
  wait_all_jobs_with(nvim, after);
  expect_jobs_match_jobs_list(nvim);
  json ids = nvim.lua(
      "return vim.tbl_map(function(j) return j.id end, require('toolhost').jobs({ all = true }))");
  EXPECT_EQ(ids, json::array({after, mine["id"], before}));
}

TEST(JobsView, OutputOfABlockFindsItsJobFromAnEarlierNeovim) {
  NvimHarness earlier;
  earlier.forward_user_event("ToolhostJobFinished");
  earlier.open_fixture("bash_block.chat.md", "old.chat.md");
  std::string path = earlier.lua("return vim.api.nvim_buf_get_name(0)");
  std::string id = run_block(earlier, 5)["id"];
  // Its buffer is not saved: the file still holds the block, without its result.

  NvimHarness nvim(json::object(), &earlier);  // the same state dir: history is shared
  forward_all_jobs(nvim);
  nvim.command("edit " + path);
  wait_all_jobs_with(nvim, id);
  // The block's extmark comes with a later batch: wait until it is applied.
  nvim.listen("marked");
  nvim.after_each_batch(R"(function(chan)
    if require("toolhost.ui").call_at(vim.api.nvim_get_current_buf(), 4) then
      vim.rpcnotify(chan, "marked", true)
    end
  end)");
  nvim.wait_for("marked");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
  EXPECT_EQ(nvim.lua("return require('toolhost.output_view').default_id()"), id);
}

}  // namespace
}  // namespace toolhost::e2e
