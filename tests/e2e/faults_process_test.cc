// Process faults end to end (#19): Neovim dies or quits while jobs with grandchildren run,
// and the host dies leaving a group whose pid was reused. What the user must be able to count
// on: nothing of those jobs keeps running, the host exits, and a process the host did not
// start is never killed. (How survivors are found: faults_helpers.h.)

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>

#include "e2e/faults_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
using namespace faults;

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
  nvim.lua("require('toolhost.host').current().pgids[...] = { 1, 2 }", json::array({stranger}));
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

// A job's group is tracked with the bounds of its leader's start time that the host read around
// the spawn (groups.lua): what tells it from a stranger's group later, with no read of /proc in
// Neovim while the job execs (that read stalled Neovim 3-6 ms at a flood's start: P1).
TEST_F(Faults, RunningJobsGroupIsTrackedWithTheBoundsOfItsLeadersStartTime) {
  NvimHarness nvim(many_jobs_options(1));
  RunningChat chat = start(nvim, "bounds.chat.md", 1);
  ASSERT_EQ(chat.pgids.size(), 1u);
  const int pgid = *chat.pgids.begin();
  json bounds =
      nvim.lua("return require('toolhost.host').current().pgids[...]", json::array({pgid}));
  ASSERT_TRUE(bounds.is_array() && bounds.size() == 2) << bounds.dump();
  ProcStat leader;
  ASSERT_TRUE(proc_stat(pgid, leader));
  EXPECT_LE(bounds[0].get<uint64_t>(), leader.start_time);
  EXPECT_GE(bounds[1].get<uint64_t>(), leader.start_time);
}

}  // namespace
}  // namespace toolhost::e2e
