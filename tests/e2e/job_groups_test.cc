// The process groups Neovim tracks for a host's jobs (lua/toolhost/groups.lua): a leader's start
// time is read off Neovim's thread, since reading /proc/<pid>/stat of a process in the middle of
// an exec waits for the exec to end (milliseconds under load: it stalled P1's floods at their
// start), and a group whose start time is still being read is ended with its host all the same.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// A `sleep` in a session (and group) of its own, as a job's leader is; killed and reaped at the
// end.
class Leader {
 public:
  Leader() {
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    const char* argv[] = {"sleep", "300", nullptr};
    spawned_ =
        ::posix_spawnp(&pid_, "sleep", nullptr, &attr, const_cast<char**>(argv), environ) == 0;
    posix_spawnattr_destroy(&attr);
  }
  ~Leader() {
    if (!spawned_) return;
    ::kill(pid_, SIGKILL);
    reap();
  }
  bool spawned() const { return spawned_; }
  pid_t pid() const { return pid_; }
  // Field 22 of its stat, read here as the kernel has it.
  long long start_time() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i) {
    }
    return std::stoll(field);
  }
  // Its exit signal, once it ended.
  int reap() {
    int status = 0;
    if (::waitpid(pid_, &status, 0) != pid_) return -1;
    spawned_ = false;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }

 private:
  pid_t pid_ = 0;
  bool spawned_ = false;
};

TEST(JobGroups, LeadersStartTimeIsReadInTheBackgroundAndIsTheLeaders) {
  Leader leader;
  ASSERT_TRUE(leader.spawned());
  NvimHarness nvim;
  json seen = nvim.lua(R"(
    local pid = ...
    local groups = {}
    require("toolhost.groups").track(groups, pid, true)
    local at_once = type(groups[pid])
    vim.wait(5000, function() return type(groups[pid]) == "number" end, 1)
    return { at_once = at_once, start = groups[pid] }
  )",
                       json::array({leader.pid()}));
  EXPECT_NE(seen["at_once"], "number") << "read on Neovim's thread";
  ASSERT_TRUE(seen["start"].is_number()) << seen.dump();
  EXPECT_EQ(seen["start"].get<long long>(), leader.start_time());
}

TEST(JobGroups, GroupWhoseStartTimeIsStillBeingReadIsEndedWithItsHost) {
  Leader leader;
  ASSERT_TRUE(leader.spawned());
  NvimHarness nvim;
  // Tracked and orphaned in one go: the read has not come back when the host "dies".
  nvim.lua(R"(
    local pid = ...
    local groups = require("toolhost.groups")
    local proc = { pgids = {} }
    groups.track(proc.pgids, pid, true)
    assert(type(proc.pgids[pid]) ~= "number", "the start time was read at once")
    groups.kill_orphaned(proc)
  )",
           json::array({leader.pid()}));
  EXPECT_EQ(leader.reap(), SIGTERM);
}

}  // namespace
}  // namespace toolhost::e2e
