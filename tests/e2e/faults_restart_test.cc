// Process faults end to end (#19): the host is killed, or restarted, while jobs with
// grandchildren run. Every call ends with exactly one result (`interrupted`), the rest of the
// buffer is untouched, history says what happened, nothing of the jobs keeps running, and
// Neovim leaks no fd. (How survivors are found: faults_helpers.h.)

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>

#include "e2e/faults_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
using namespace faults;

// The buffer without the result blocks Lua writes for interrupted calls (3 lines each).
Lines without_interrupted_results(const Lines& lines, int* removed) {
  Lines kept;
  *removed = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("````result ", 0) == 0 &&
        lines[i].find(" status=interrupted") != std::string::npos && i + 2 < lines.size() &&
        lines[i + 2] == "````") {
      ++*removed;
      i += 2;
      continue;
    }
    kept.push_back(lines[i]);
  }
  return kept;
}

// The host is SIGKILLed while six calls run, each with grandchildren (two ignore SIGTERM).
// Lua marks every call `interrupted` and changes nothing else in the buffer; no process of the
// jobs survives the host; the next :ToolRun starts a new host that works, and history (the
// new host's job list, toolhost.jobs()) says `interrupted` for each.
TEST_F(Faults, HostKilledInterruptsEveryRunningCallAndLeavesNoJobProcess) {
  constexpr int kJobs = 6;
  NvimHarness nvim(many_jobs_options(kJobs));
  nvim.forward_diagnostics();
  RunningChat chat = start(nvim, "host-killed.chat.md", kJobs);
  ASSERT_EQ(chat.pgids.size(), static_cast<size_t>(kJobs));
  std::set<int> before = survivors(chat.marker, chat.pgids);
  ASSERT_GE(before.size(), static_cast<size_t>(4 * kJobs + 1)) << describe(before);
  Lines text_before = nvim.lines(chat.buf);

  auto killed_at = Clock::now();
  ASSERT_EQ(::kill(chat.host_pid, SIGKILL), 0);
  std::set<std::string> interrupted;
  while (interrupted.size() < static_cast<size_t>(kJobs)) {
    json finished = wait_event(nvim, "ToolhostJobFinished");
    EXPECT_EQ(finished["status"], "interrupted") << finished.dump();
    interrupted.insert(finished["id"].get<std::string>());
  }
  auto marked_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at).count();
  EXPECT_EQ(interrupted, std::set<std::string>(chat.ids.begin(), chat.ids.end()));
  // The product rule is 1 s; 5 s keeps a loaded machine from failing it.
  EXPECT_LT(marked_ms, 5000);

  std::set<int> alive = wait_all_exit(before, killed_at + std::chrono::seconds(5));
  std::set<int> left = survivors(chat.marker, chat.pgids);
  std::cerr << "[faults] host SIGKILL: calls marked interrupted after " << marked_ms << " ms; "
            << before.size() << " processes before, " << left.size() << " left\n";
  EXPECT_TRUE(alive.empty()) << describe(alive);
  EXPECT_TRUE(left.empty()) << describe(left);

  // One result per call, and not one other byte changed.
  int results = 0;
  Lines text_after = nvim.lines(chat.buf);
  EXPECT_EQ(without_interrupted_results(text_after, &results), text_before);
  EXPECT_EQ(results, kJobs) << text_of(nvim, chat.buf);

  // The next run starts a new host, which works and whose history says `interrupted`.
  reply(nvim, chat.buf,
        {"USER: and now?", "ASSISTANT: One more.", "", "**bash**", "```bash", "echo after", "```"});
  set_cursor(nvim, row_of(nvim, chat.buf, "echo after"));
  nvim.command("ToolRun");
  json after = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(after["status"], "succeeded") << after.dump();
  EXPECT_NE(nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())"), chat.host_pid);
  json listed = barrier(nvim, chat.buf);
  for (const std::string& id : chat.ids) {
    bool found = false;
    for (const auto& job : listed) {
      if (job["id"] != id) continue;
      found = true;
      EXPECT_EQ(job["status"], "interrupted") << job.dump();
    }
    EXPECT_TRUE(found) << id << " is not in the new host's job list";
    EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
              "interrupted");
  }
}

// Lines starting with `prefix`.
int count_lines(const Lines& lines, const std::string& prefix) {
  int count = 0;
  for (const auto& line : lines) count += line.rfind(prefix, 0) == 0;
  return count;
}

// The last history line of each job ({id: line}), as the next host would read it.
json last_history_lines(NvimHarness& nvim) {
  std::string path = nvim.lua("return require('toolhost.host').dirs().state .. '/history.jsonl'");
  std::istringstream lines(read_all(path));
  json last = json::object();
  for (std::string line; std::getline(lines, line);) {
    json record = json::parse(line, nullptr, false);
    if (record.is_object() && record.contains("id")) last[record["id"].get<std::string>()] = record;
  }
  return last;
}

// :ToolhostRestart while four calls run, three times over: each time the old host's jobs
// are ended (nothing of them survives), every call gets exactly one result, the same status
// in the buffer, in toolhost.jobs() and in the new host's history, and Neovim holds no more
// fds than after the first restart.
TEST_F(Faults, RestartWithRunningJobsEndsThemOnceAndLeaksNothing) {
  constexpr int kJobs = 4;
  NvimHarness nvim(many_jobs_options(kJobs));
  RunningChat chat = start(nvim, "restart.chat.md", kJobs);
  int nvim_pid = nvim.lua("return vim.fn.getpid()").get<int>();
  std::vector<size_t> fds;
  int processes_left = 0;
  for (int round = 0; round < 3; ++round) {
    if (round > 0) {
      reply(nvim, chat.buf, {"USER: again"});
      std::vector<std::string> commands;
      for (int i = 0; i < kJobs; ++i) commands.push_back(family(i % 3 == 0));
      reply(nvim, chat.buf, bash_reply(commands));
      nvim.command("ToolRunAll");
      chat.ids.clear();
      for (int i = 0; i < kJobs; ++i) {
        chat.ids.push_back(wait_event(nvim, "ToolhostJobStarted")["id"]);
      }
      wait_ready(nvim, kJobs * (round + 1));
      chat.host_pid =
          nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())").get<int>();
    }
    std::set<int> before = survivors(chat.marker);
    auto restarted_at = Clock::now();
    nvim.command("ToolhostRestart");
    ASSERT_TRUE(wait_for_exit(chat.host_pid, std::chrono::seconds(5))) << "old host lives on";
    // Lua ends the calls as it stops the old host: one `interrupted` each.
    std::set<std::string> ended;
    while (ended.size() < static_cast<size_t>(kJobs)) {
      json finished = wait_event(nvim, "ToolhostJobFinished");
      EXPECT_EQ(finished["status"], "interrupted") << finished.dump();
      ended.insert(finished["id"].get<std::string>());
    }
    EXPECT_EQ(ended, std::set<std::string>(chat.ids.begin(), chat.ids.end()));
    ASSERT_TRUE(wait_for_exit(chat.host_pid, std::chrono::seconds(5))) << "old host lives on";
    int new_host = nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())").get<int>();
    before.erase(new_host);
    std::set<int> alive = wait_all_exit(before, restarted_at + std::chrono::seconds(5));
    EXPECT_TRUE(alive.empty()) << describe(alive);
    processes_left += static_cast<int>(alive.size());

    // The old host wrote nothing after it was stopped, and recorded what Lua shows.
    json listed = barrier(nvim, chat.buf);
    Lines text = nvim.lines(chat.buf);
    json history = last_history_lines(nvim);
    for (const std::string& id : chat.ids) {
      EXPECT_EQ(count_lines(text, "````result id=" + id + " "), 1) << id << "\n"
                                                                   << text_of(nvim, chat.buf);
      EXPECT_EQ(count_lines(text, "````result id=" + id +
                                      " tool=run_terminal_command "
                                      "status=interrupted"),
                1);
      EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
                "interrupted");
      json job;
      for (const auto& entry : listed) {
        if (entry["id"] == id) job = entry;
      }
      EXPECT_EQ(job["status"], "interrupted") << id << " in the new host: " << job.dump();
      EXPECT_EQ(history[id]["ev"], "ended") << history[id].dump();
      EXPECT_EQ(history[id]["status"], "interrupted") << history[id].dump();
    }
    fds.push_back(fd_count(nvim_pid));
  }
  std::cerr << "[faults] restart: Neovim fds after each restart: " << fds[0] << " " << fds[1] << " "
            << fds[2] << "; processes left " << processes_left << "\n";
  EXPECT_EQ(fds[2], fds[0]);
  EXPECT_EQ(fds[1], fds[0]);
}

}  // namespace
}  // namespace toolhost::e2e
