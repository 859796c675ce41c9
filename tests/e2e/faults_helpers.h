#pragma once
// Helpers of the process-fault tests (#19): every process a test's jobs start carries a
// unique marker in its environment (set in Neovim before the host starts, inherited by the
// host and everything it spawns), so a survivor is found by scanning /proc, whatever group or
// session it ended up in; chats whose calls run families of processes (family.sh); waits on
// pidfds; and the Faults fixture, which kills whatever a failed test left behind.

#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e::faults {

using Clock = std::chrono::steady_clock;

inline constexpr const char* kMarkerName = "TOOLHOST_FAULTS_MARKER";

inline std::string unique_marker() {
  static int counter = 0;
  return "faults-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ProcStat {
  char state = '?';
  int pgrp = 0;
  int session = 0;
  uint64_t start_time = 0;  // clock ticks since boot
};

// /proc/<pid>/stat past the command name (which may hold spaces and parentheses).
inline bool proc_stat(int pid, ProcStat& out) {
  std::string text = read_all("/proc/" + std::to_string(pid) + "/stat");
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 2));
  int ppid = 0;
  rest >> out.state >> ppid >> out.pgrp >> out.session;
  std::string skipped;
  for (int field = 7; field < 22; ++field) rest >> skipped;
  rest >> out.start_time;
  return static_cast<bool>(rest);
}

// Live (not zombie) processes that carry `marker` in their environment or belong to one of
// `groups` (as process group or session).
inline std::set<int> survivors(const std::string& marker, const std::set<int>& groups = {}) {
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
inline bool wait_for_exit(int pid, std::chrono::milliseconds timeout) {
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
inline std::set<int> wait_all_exit(const std::set<int>& pids, Clock::time_point deadline) {
  std::set<int> alive;
  for (int pid : pids) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!wait_for_exit(pid, std::max(left, std::chrono::milliseconds(0)))) alive.insert(pid);
  }
  return alive;
}

inline size_t fd_count(int pid) {
  size_t count = 0;
  if (DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
    ::closedir(dir);
  }
  return count;
}

inline std::string describe(const std::set<int>& pids) {
  std::string text;
  for (int pid : pids) {
    std::string cmdline = read_all("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    text += std::to_string(pid) + ": " + cmdline + "\n";
  }
  return text;
}

inline std::string family(bool stubborn) {
  return std::string("sh ") + TOOLHOST_FIXTURES + "/faults/family.sh" +
         (stubborn ? " stubborn" : "");
}

// Notifies "ready" {count} each time another running call has printed "ready" (its whole
// family exists then).
inline void count_ready_calls(NvimHarness& nvim) {
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

inline void wait_ready(NvimHarness& nvim, int calls) {
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

inline RunningChat start_families(NvimHarness& nvim, const std::string& name, int count) {
  RunningChat chat;
  chat.marker = unique_marker();
  nvim.lua("vim.env[...] = select(2, ...)", nlohmann::json::array({kMarkerName, chat.marker}));
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

inline nlohmann::json many_jobs_options(int count) {
  return {{"max_concurrent", count}, {"run_all", "parallel"}, {"confirm_run_all", false}};
}

// SIGKILLs whatever carries `marker` (it can only be a test's own process): a failed test
// leaves nothing running behind it.
inline void kill_marked(const std::string& marker) {
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

}  // namespace toolhost::e2e::faults
