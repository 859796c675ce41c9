// :ToolJobs and :ToolOutput, through a real Neovim and the real host.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/jobs_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Waits until the view `kind` reports an update that satisfies `done`.
json wait_view(
    NvimHarness& nvim, const std::string& kind,
    const std::function<bool(const json&)>& done = [](const json&) { return true; }) {
  for (;;) {
    json update = nvim.wait_for("ToolhostViewUpdated");
    if (update["view"] == kind && done(update)) return update;
  }
}

// Field 22 of /proc/<pid>/stat, the process's start time: with the pid, how history names a
// host. 0 when unknown.
uint64_t start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return 0;
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

// Regression: a job another Neovim's host ran stayed `running` here after that host died, and
// :ToolOutput on it asked for more every 200 ms without end. It reads `interrupted` once its
// host is gone, and the view stops following it.
TEST(JobsView, OutputOfAJobWhoseHostDiedStopsFollowingIt) {
  // The other host: a process of this test stands in for it (history names a host by its pid
  // and start time, and asks nothing more of it).
  pid_t peer = 0;
  const char* sleep_argv[] = {"sleep", "1000", nullptr};
  ASSERT_EQ(
      ::posix_spawnp(&peer, "sleep", nullptr, nullptr, const_cast<char**>(sleep_argv), environ), 0);
  struct Reap {
    pid_t pid;
    ~Reap() {
      if (pid <= 0) return;  // reaped already (kill(0) would signal our own group)
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reap{peer};
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostViewUpdated");
  json dirs = nvim.lua("return require('toolhost.host').dirs()");
  const std::string state = dirs["state"], cache = dirs["cache"];
  std::filesystem::create_directories(state);
  std::filesystem::create_directories(cache + "/jobs");
  const std::string log = cache + "/jobs/th-1.log";
  std::ofstream(log) << "working\n";
  json host = {{"pid", peer}, {"start", start_time(peer)}};
  std::ofstream(state + "/history.jsonl")
      << json{{"ev", "queued"},     {"id", "th-1"}, {"tool", "run_terminal_command"},
              {"status", "queued"}, {"log", log},   {"host", host}}
             .dump()
      << "\n"
      << json{{"ev", "started"}, {"id", "th-1"}, {"status", "running"},
              {"pid", peer},     {"pgid", peer}, {"host", host}}
             .dump()
      << "\n";

  nvim.command("ToolOutput th-1");
  json following = wait_view(nvim, "output", [](const json& u) { return u["offset"] == 8; });
  EXPECT_EQ(following["finished"], false);
  EXPECT_EQ(host_call(nvim, "jobs.get", {{"id", "th-1"}})["result"]["status"], "running");

  ::kill(peer, SIGKILL);
  ASSERT_EQ(::waitpid(peer, nullptr, 0), peer);
  reap.pid = 0;
  // The view polls every 200 ms while the job runs, so every wait gets an update: the
  // deadline is this test's own.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  json done = wait_view(nvim, "output", [&](const json& u) {
    EXPECT_FALSE(u.contains("error")) << u.dump();
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "still following th-1 20 s after its host died: " << u.dump();
      return true;
    }
    return u["finished"] == true;
  });
  ASSERT_EQ(done["finished"], true);
  EXPECT_EQ(done["id"], "th-1");
  EXPECT_EQ(nvim.lines(done["buf"].get<int64_t>()), (std::vector<std::string>{"working", ""}));
  json job = host_call(nvim, "jobs.get", {{"id", "th-1"}})["result"];
  EXPECT_EQ(job["status"], "interrupted");
  EXPECT_EQ(job["error"], "the host that ran this job exited");
}

}  // namespace
}  // namespace toolhost::e2e
