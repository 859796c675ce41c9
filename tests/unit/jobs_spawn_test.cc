// How a Process starts its child (posix_spawn) and sees it exit (a pidfd, or the SIGCHLD
// fallback): what libuv's fork + execvp did must still hold.

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <set>
#include <sstream>

#include "jobs/process.h"
#include "test_jobs.h"

extern char** environ;

namespace toolhost::jobs::testing {
namespace {

class JobsSpawn : public EngineTest, public ::testing::WithParamInterface<Reaping> {
 protected:
  void SetUp() override {
    before_ = reaping();
    set_reaping_for_testing(GetParam());
    EngineTest::SetUp();
  }
  void TearDown() override {
    EngineTest::TearDown();
    set_reaping_for_testing(before_);
  }
  Reaping before_ = Reaping::Pidfd;
};

std::string reaping_name(const ::testing::TestParamInfo<Reaping>& info) {
  return info.param == Reaping::Pidfd ? "Pidfd" : "Sigchld";
}

TEST_P(JobsSpawn, ExitCodesAndSignalsAreSeen) {
  make();
  JobInfo ok = run(shell("exit 0"));
  EXPECT_EQ(ok.status, Status::Succeeded);
  JobInfo failed = run(shell("exit 7"));
  ASSERT_TRUE(failed.exit_code);
  EXPECT_EQ(*failed.exit_code, 7);
  JobInfo killed = run(shell("kill -KILL $$"));
  EXPECT_FALSE(killed.exit_code);
  ASSERT_TRUE(killed.term_signal);
  EXPECT_EQ(*killed.term_signal, SIGKILL);
}

TEST_P(JobsSpawn, ManyConcurrentChildrenAreEachReapedOnce) {
  EngineOptions options;
  options.max_concurrent = 50;
  Engine& engine = make(options);
  int finished = 0;
  int right = 0;
  for (int i = 0; i < 200; ++i) {
    JobEvents events;
    events.finished = [&, i](const JobInfo& info) {
      ++finished;
      right += info.exit_code && *info.exit_code == i % 3;
    };
    engine.submit(shell("exit " + std::to_string(i % 3)), events);
  }
  ASSERT_TRUE(run_until(
      &loop_, [&] { return finished == 200; }, 60000));
  EXPECT_EQ(right, 200);
}

// The reaper waits for its own children by pid, never for any child of the process.
TEST_P(JobsSpawn, OtherChildrenOfTheProcessAreLeftToTheirOwner) {
  char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                  const_cast<char*>("exit 42"), nullptr};
  pid_t other = 0;
  ASSERT_EQ(::posix_spawn(&other, "/bin/sh", nullptr, nullptr, argv, environ), 0);
  make();
  // The job's SIGCHLD comes after the other child's exit.
  EXPECT_EQ(run(shell("sleep 0.1")).status, Status::Succeeded);
  int status = 0;
  ASSERT_EQ(::waitpid(other, &status, 0), other);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST_P(JobsSpawn, ChildLeadsItsOwnSessionAndProcessGroup) {
  make();
  JobInfo job = run(shell("cut -d' ' -f1,5,6 /proc/$$/stat"));
  std::string id = std::to_string(job.pid);
  EXPECT_EQ(job.out.text(), id + " " + id + " " + id + "\n");
}

// job_nice lowers the whole group below the host, what the job forks included, and never raises
// it; each step of a sequence is a group of its own and gets it too. posix_spawn has no
// attribute for it: the host lowers the group right after the exec, so a job first waits until
// its own priority changed (an event, bounded by the job's timeout), then reports.
TEST_P(JobsSpawn, JobsRunJobNiceBelowTheHost) {
  errno = 0;
  const int own = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  if (own + 3 > 19) GTEST_SKIP() << "the test runs at nice " << own;
  EngineOptions options;
  options.job_nice = 3;
  make(options);
  const std::string expected = std::to_string(own + 3);
  const std::string nice_of_self = "cut -d\" \" -f19 /proc/$$/stat";
  const std::string report = "while [ \"$(" + nice_of_self + ")\" = " + std::to_string(own) +
                             " ]; do :; done; " + nice_of_self + "; sh -c '" + nice_of_self + "'";
  JobInfo job = run(shell(report));
  EXPECT_EQ(job.out.text(), expected + "\n" + expected + "\n");
  JobSpec steps;
  steps.steps = {{"sh", "-c", report}, {"sh", "-c", report}};
  EXPECT_EQ(run(steps).out.text(),
            expected + "\n" + expected + "\n" + expected + "\n" + expected + "\n");
  options.job_nice = 0;
  make(options);
  EXPECT_EQ(run(shell(nice_of_self)).out.text(), std::to_string(own) + "\n");
}

TEST_P(JobsSpawn, SignalsTheHostIgnoresOrBlocksAreDefaultInTheChild) {
  make();
  auto old_pipe = std::signal(SIGPIPE, SIG_IGN);
  sigset_t usr2, old_mask;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  ::pthread_sigmask(SIG_BLOCK, &usr2, &old_mask);
  JobSpec spec;
  spec.argv = {"/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"};
  JobInfo job = run(spec);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  std::signal(SIGPIPE, old_pipe);
  // The standard signals (1-31) are all default and unblocked. Beyond them glibc's
  // posix_spawn leaves its two internal signals (32, 33) ignored, which the child's own libc
  // sets up again.
  std::istringstream lines(job.out.text());
  std::string key;
  std::string blocked, ignored;
  lines >> key >> blocked >> key >> ignored;
  ASSERT_EQ(blocked.size(), 16u) << job.out.text();
  ASSERT_EQ(ignored.size(), 16u) << job.out.text();
  EXPECT_EQ(std::stoull(blocked, nullptr, 16) & 0x7fffffffu, 0u) << job.out.text();
  EXPECT_EQ(std::stoull(ignored, nullptr, 16) & 0x7fffffffu, 0u) << job.out.text();
}

TEST_P(JobsSpawn, StdoutAndStderrArePipesAndNoOtherFdIsInherited) {
  make();
  // What this test process itself would pass on to any child (fds it inherited without
  // FD_CLOEXEC) is not the engine's.
  std::set<int> inherited;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = std::stoi(entry.path().filename().string());
    int flags = ::fcntl(fd, F_GETFD);
    if (fd > 2 && flags >= 0 && !(flags & FD_CLOEXEC)) inherited.insert(fd);
  }
  JobInfo job =
      run(shell("[ -p /dev/stdout ] && [ -p /dev/stderr ] && echo pipes; ls /proc/self/fd"));
  std::istringstream lines(job.out.text());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "pipes");
  std::vector<int> extra;
  while (std::getline(lines, line)) {
    int fd = std::stoi(line);
    if (fd > 2 && !inherited.count(fd)) extra.push_back(fd);
  }
  // The one `ls` opened for /proc/self/fd.
  EXPECT_EQ(extra.size(), 1u) << job.out.text();
}

TEST_P(JobsSpawn, CommandIsSearchedInTheJobsPathNotTheHosts) {
  make();
  TempDir dir;
  {
    std::ofstream tool(dir / "toolhost-test-tool");
    tool << "#!/bin/sh\necho found \"$@\"\n";
  }
  ::chmod((dir / "toolhost-test-tool").c_str(), 0755);
  JobSpec spec;
  spec.argv = {"toolhost-test-tool", "a b"};
  spec.env = {{"PATH", "/nonexistent:" + dir.path() + ":/usr/bin:/bin"}};
  JobInfo job = run(spec);
  EXPECT_EQ(job.status, Status::Succeeded) << job.error;
  EXPECT_EQ(job.out.text(), "found a b\n");

  JobSpec missing;
  missing.argv = {"toolhost-test-tool"};  // not in the host's PATH
  JobInfo not_found = run(missing);
  EXPECT_EQ(not_found.status, Status::Failed);
  EXPECT_NE(not_found.error.find("cannot start `toolhost-test-tool`: no such file"),
            std::string::npos)
      << not_found.error;
}

TEST_P(JobsSpawn, RelativeCommandAndPathEntriesAreRelativeToTheJobsCwd) {
  make();
  TempDir dir;
  std::filesystem::create_directory(dir / "bin");
  {
    std::ofstream tool(dir / "bin/tool");
    tool << "#!/bin/sh\npwd\n";
  }
  ::chmod((dir / "bin/tool").c_str(), 0755);
  JobSpec spec;
  spec.argv = {"./bin/tool"};
  spec.cwd = dir.path();
  std::string here = std::filesystem::canonical(dir.path()).string() + "\n";
  EXPECT_EQ(run(spec).out.text(), here);
  spec.argv = {"tool"};
  spec.env = {{"PATH", "bin:/usr/bin:/bin"}};
  EXPECT_EQ(run(spec).out.text(), here);
}

TEST_P(JobsSpawn, ScriptWithoutAnInterpreterLineRunsInSh) {
  make();
  TempDir dir;
  {
    std::ofstream script(dir / "script");
    script << "echo from sh \"$1\"\n";
  }
  ::chmod((dir / "script").c_str(), 0755);
  JobSpec spec;
  spec.argv = {dir / "script", "x"};
  JobInfo job = run(spec);
  EXPECT_EQ(job.status, Status::Succeeded) << job.error;
  EXPECT_EQ(job.out.text(), "from sh x\n");
}

TEST_P(JobsSpawn, NonExecutableAndMissingCwdFailToStart) {
  make();
  TempDir dir;
  {
    std::ofstream file(dir / "plain");
    file << "echo no\n";
  }
  JobSpec plain;
  plain.argv = {dir / "plain"};
  JobInfo denied = run(plain);
  EXPECT_EQ(denied.status, Status::Failed);
  EXPECT_NE(denied.error.find("permission denied"), std::string::npos) << denied.error;

  JobSpec nowhere = shell("echo no");
  nowhere.cwd = dir / "missing";
  JobInfo failed = run(nowhere);
  EXPECT_EQ(failed.status, Status::Failed);
  EXPECT_EQ(failed.out.text(), "");
  EXPECT_NE(failed.error.find("cannot start"), std::string::npos) << failed.error;
}

TEST_P(JobsSpawn, TimeoutAndLeftoversBehaveAsWithEitherReaping) {
  make();
  JobInfo timed_out = run(shell("sleep 100", 100));
  EXPECT_EQ(timed_out.status, Status::TimedOut);
  EXPECT_TRUE(group_gone(&loop_, timed_out.pgid));
  JobInfo lingering = run(shell("echo hi; sleep 100 & exit 0"));
  EXPECT_EQ(lingering.status, Status::Succeeded);
  EXPECT_GE(lingering.duration_s, 0.0);
  EXPECT_TRUE(group_gone(&loop_, lingering.pgid));
}

INSTANTIATE_TEST_SUITE_P(Reaping, JobsSpawn, ::testing::Values(Reaping::Pidfd, Reaping::Sigchld),
                         reaping_name);

}  // namespace
}  // namespace toolhost::jobs::testing
