// Process faults end to end (#19): Neovim or the host dies, or the host is restarted, while
// jobs with grandchildren run. What the user must be able to count on: nothing of those jobs
// keeps running, every call ends with exactly one result (or `interrupted`), the rest of the
// buffer is untouched, history says what happened, and Neovim leaks no fd.
//
// Every process a test's jobs start carries a unique marker in its environment (set in
// Neovim before the host starts, inherited by the host and everything it spawns), so a
// survivor is found by scanning /proc, whatever group or session it ended up in.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kMarkerName = "TOOLHOST_FAULTS_MARKER";

std::string unique_marker() {
  static int counter = 0;
  return "faults-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ProcStat {
  char state = '?';
  int pgrp = 0;
  int session = 0;
};

// /proc/<pid>/stat past the command name (which may hold spaces and parentheses).
bool proc_stat(int pid, ProcStat& out) {
  std::string text = read_all("/proc/" + std::to_string(pid) + "/stat");
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 2));
  int ppid = 0;
  rest >> out.state >> ppid >> out.pgrp >> out.session;
  return static_cast<bool>(rest);
}

// Live (not zombie) processes that carry `marker` in their environment or belong to one of
// `groups` (as process group or session).
std::set<int> survivors(const std::string& marker, const std::set<int>& groups = {}) {
  std::set<int> found;
  const std::string needle = std::string(kMarkerName) + "=" + marker;
  DIR* dir = ::opendir("/proc");
  if (!dir) return found;
  while (dirent* entry = ::readdir(dir)) {
    int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    ProcStat stat;
    if (!proc_stat(pid, stat) || stat.state == 'Z' || stat.state == 'X') continue;
    std::string environ = read_all("/proc/" + std::to_string(pid) + "/environ");
    bool marked = false;
    for (size_t at = 0; at < environ.size();) {
      size_t end = environ.find('\0', at);
      if (end == std::string::npos) end = environ.size();
      if (environ.compare(at, end - at, needle) == 0) marked = true;
      at = end + 1;
    }
    if (marked || groups.count(stat.pgrp) || groups.count(stat.session)) found.insert(pid);
  }
  ::closedir(dir);
  return found;
}

// Waits until process `pid` (not our child) has exited: its pidfd becomes readable then.
bool wait_for_exit(int pid, std::chrono::milliseconds timeout) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already gone
  // Our SIGCHLD (Neovim is our child) interrupts poll(): go on with what is left of the time.
  auto deadline = Clock::now() + timeout;
  int ready = -1;
  do {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd, POLLIN, 0};
    ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
  } while (ready < 0 && errno == EINTR);
  ::close(fd);
  return ready == 1;
}

// Waits (each on its own pidfd) for every process of `pids` to exit, until `deadline`;
// returns those still alive then.
std::set<int> wait_all_exit(const std::set<int>& pids, Clock::time_point deadline) {
  std::set<int> alive;
  for (int pid : pids) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!wait_for_exit(pid, std::max(left, std::chrono::milliseconds(0)))) alive.insert(pid);
  }
  return alive;
}

size_t fd_count(int pid) {
  size_t count = 0;
  if (DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
    ::closedir(dir);
  }
  return count;
}

std::string describe(const std::set<int>& pids) {
  std::string text;
  for (int pid : pids) {
    std::string cmdline = read_all("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    text += std::to_string(pid) + ": " + cmdline + "\n";
  }
  return text;
}

std::string family(bool stubborn) {
  return std::string("sh ") + TOOLHOST_FIXTURES + "/faults/family.sh" +
         (stubborn ? " stubborn" : "");
}

// Notifies "ready" {count} each time another running call has printed "ready" (its whole
// family exists then).
void count_ready_calls(NvimHarness& nvim) {
  nvim.listen("ready");
  nvim.after_each_batch(R"(function(chan, batch)
    _G.ready_calls = _G.ready_calls or {}
    for _, entry in ipairs(batch and batch.buffers or {}) do
      for _, s in ipairs(entry.stream or {}) do
        if not _G.ready_calls[s.key] and vim.tbl_contains(s.lines, "ready") then
          _G.ready_calls[s.key] = true
          vim.rpcnotify(chan, "ready", vim.tbl_count(_G.ready_calls))
        end
      end
    end
  end)");
}

void wait_ready(NvimHarness& nvim, int calls) {
  while (nvim.wait_for("ready", std::chrono::seconds(30)).get<int>() < calls) {
  }
}

// A chat whose last reply has `count` calls of family.sh (every third one stubborn), all
// started at once by :ToolRunAll; returns once each has its whole family.
struct RunningChat {
  int64_t buf = 0;
  std::string marker;
  std::vector<std::string> ids;
  std::set<int> pgids;
  int host_pid = 0;
};

RunningChat start_families(NvimHarness& nvim, const std::string& name, int count) {
  RunningChat chat;
  chat.marker = unique_marker();
  nvim.lua("vim.env[...] = select(2, ...)", json::array({kMarkerName, chat.marker}));
  count_ready_calls(nvim);
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  chat.buf = open_chat(nvim, name);
  std::vector<std::string> commands;
  for (int i = 0; i < count; ++i) commands.push_back(family(i % 3 == 0));
  reply(nvim, chat.buf, bash_reply(commands));
  nvim.command("ToolRunAll");
  for (int i = 0; i < count; ++i) chat.ids.push_back(wait_event(nvim, "ToolhostJobStarted")["id"]);
  wait_ready(nvim, count);
  for (const auto& job : barrier(nvim, chat.buf)) {
    if (job["status"] == "running") chat.pgids.insert(job["pgid"].get<int>());
  }
  chat.host_pid = nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())").get<int>();
  return chat;
}

json many_jobs_options(int count) {
  return {{"max_concurrent", count}, {"run_all", "parallel"}, {"confirm_run_all", false}};
}

// SIGKILLs whatever carries `marker` (it can only be a test's own process): a failed test
// leaves nothing running behind it.
void kill_marked(const std::string& marker) {
  for (int pid : survivors(marker)) ::kill(pid, SIGKILL);
}

class Faults : public ::testing::Test {
 protected:
  // Neovim may die under the harness: writing to it then must be an error, not a signal.
  void SetUp() override { std::signal(SIGPIPE, SIG_IGN); }
  void TearDown() override {
    for (const auto& marker : markers_) kill_marked(marker);
  }
  RunningChat start(NvimHarness& nvim, const std::string& name, int count) {
    RunningChat chat = start_families(nvim, name, count);
    markers_.push_back(chat.marker);
    return chat;
  }

  std::vector<std::string> markers_;
};

// Neovim is SIGKILLed while 20 jobs run, each with grandchildren (a third of them ignoring
// SIGTERM): the host sees its parent die (PR_SET_PDEATHSIG) and stdin close, ends every job's
// group and exits; nothing of the jobs survives.
TEST_F(Faults, NeovimKilledLeavesNoJobProcessAndTheHostExits) {
  constexpr int kJobs = 20;
  NvimHarness nvim(many_jobs_options(kJobs));
  RunningChat chat = start(nvim, "killed.chat.md", kJobs);
  ASSERT_EQ(chat.pgids.size(), static_cast<size_t>(kJobs));
  std::set<int> before = survivors(chat.marker, chat.pgids);
  // Each job: the shell, a sleep, a subshell and its sleep; plus the host.
  ASSERT_GE(before.size(), static_cast<size_t>(4 * kJobs + 1)) << describe(before);
  int nvim_pid = nvim.lua("return vim.fn.getpid()").get<int>();

  auto killed_at = Clock::now();
  ASSERT_EQ(::kill(nvim_pid, SIGKILL), 0);
  // The product rule is 1 s; 5 s keeps a loaded 2-core machine (or ASan) from failing it.
  ASSERT_TRUE(wait_for_exit(chat.host_pid, std::chrono::seconds(5))) << "the host outlived Neovim";
  auto host_exit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at).count();
  std::set<int> alive = wait_all_exit(before, killed_at + std::chrono::seconds(5));
  std::set<int> left = survivors(chat.marker, chat.pgids);
  RecordProperty("host_exit_ms", static_cast<int>(host_exit_ms));
  RecordProperty("processes_left", static_cast<int>(left.size()));
  std::cerr << "[faults] Neovim SIGKILL: host exited after " << host_exit_ms << " ms; "
            << before.size() << " processes before, " << left.size() << " left\n";
  EXPECT_TRUE(alive.empty()) << describe(alive);
  EXPECT_TRUE(left.empty()) << describe(left);
}

// :qa! with the same 20 jobs: Neovim closes the channel and stops the host, which ends them.
TEST_F(Faults, NeovimQuitLeavesNoJobProcessAndTheHostExits) {
  constexpr int kJobs = 20;
  NvimHarness nvim(many_jobs_options(kJobs));
  RunningChat chat = start(nvim, "quit.chat.md", kJobs);
  std::set<int> before = survivors(chat.marker, chat.pgids);
  ASSERT_GE(before.size(), static_cast<size_t>(4 * kJobs + 1)) << describe(before);

  auto quit_at = Clock::now();
  nvim.lua("vim.schedule(function() vim.cmd('qa!') end)");
  ASSERT_TRUE(wait_for_exit(chat.host_pid, std::chrono::seconds(5))) << "the host outlived Neovim";
  auto host_exit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - quit_at).count();
  std::set<int> alive = wait_all_exit(before, quit_at + std::chrono::seconds(5));
  std::set<int> left = survivors(chat.marker, chat.pgids);
  std::cerr << "[faults] :qa!: host exited after " << host_exit_ms << " ms; " << before.size()
            << " processes before, " << left.size() << " left\n";
  EXPECT_TRUE(alive.empty()) << describe(alive);
  EXPECT_TRUE(left.empty()) << describe(left);
}

// "Never kill a process you did not start": after the host died, Lua signals a job's group
// only while its leader is the process that started then. Here a group it tracks has been
// taken over (a pid reused) by a process of someone else: it survives both the SIGTERM and the
// SIGKILL that end the real job's group.
TEST_F(Faults, HostKilledLeavesAGroupWhosePidWasReusedAlone) {
  NvimHarness nvim(many_jobs_options(1));
  // The stranger: a session leader the host never started.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  const char* argv[] = {"sleep", "300", nullptr};
  pid_t stranger = 0;
  ASSERT_EQ(::posix_spawnp(&stranger, "sleep", nullptr, &attr, const_cast<char**>(argv), environ),
            0);
  posix_spawnattr_destroy(&attr);
  RunningChat chat = start(nvim, "reused.chat.md", 1);
  ASSERT_EQ(chat.pgids.size(), 1u);
  // As if the host had reported the stranger's number for a job that started at another time.
  nvim.lua("require('toolhost.host').current().pgids[...] = 1", json::array({stranger}));
  std::set<int> job = survivors(chat.marker, chat.pgids);
  job.erase(chat.host_pid);

  ASSERT_EQ(::kill(chat.host_pid, SIGKILL), 0);
  // The job (stubborn: only the SIGKILL after kill_grace_ms ends it) goes...
  std::set<int> alive = wait_all_exit(job, Clock::now() + std::chrono::seconds(10));
  EXPECT_TRUE(alive.empty()) << describe(alive);
  // ...and the stranger, in a group of the same standing, is still there.
  EXPECT_EQ(::kill(stranger, 0), 0) << "a process toolhost did not start was killed";
  ::kill(stranger, SIGKILL);
  int status = 0;
  ::waitpid(stranger, &status, 0);
}

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
