// Children that misbehave (#19): they ignore SIGTERM, close their output early and run on,
// leave a daemon behind in its own session, or read stdin. Nothing hangs: every job ends, on
// time, with the status its child earned. Also: a restarted host's jobs read `interrupted`.

#include <csignal>
#include <sstream>

#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsFaults = EngineTest;

std::string fixture(const std::string& name) {
  return std::string(TOOLHOST_FIXTURES) + "/faults/" + name;
}

// A SIGTERM-ignoring child hit by its timeout: SIGKILL follows after the grace; the job ends
// `timed_out`, killed by SIGKILL, and nothing of its group is left.
TEST_F(JobsFaults, TimeoutOfAChildIgnoringSigtermEscalatesToSigkill) {
  EngineOptions options;
  options.kill_grace_ms = 200;
  make(options);
  JobInfo job = run(shell("trap '' TERM; sleep 100 & sleep 100", 200));
  EXPECT_EQ(job.status, Status::TimedOut);
  ASSERT_TRUE(job.term_signal);
  EXPECT_EQ(*job.term_signal, SIGKILL);
  EXPECT_GE(job.duration_s, 0.35);  // the timeout, then the grace (timers round to 1 ms)
  EXPECT_LT(job.duration_s, 10);
  EXPECT_TRUE(group_gone(&loop_, job.pgid));
}

// Closing stdout and stderr is not the end of a job: it ends when the child exits, with that
// exit's status, and what it wrote before is kept.
TEST_F(JobsFaults, ChildThatClosesItsOutputIsAwaitedUntilItExits) {
  make();
  TempDir dir;
  const std::string flag = dir / "exited";
  JobInfo job = run(shell("echo early; exec >&- 2>&-; sleep 0.3; touch " + flag + "; exit 4"));
  EXPECT_EQ(job.status, Status::Failed);
  ASSERT_TRUE(job.exit_code);
  EXPECT_EQ(*job.exit_code, 4);
  EXPECT_EQ(job.out.text(), "early\n");
  EXPECT_TRUE(std::filesystem::exists(flag)) << "the job ended before its child exited";
}

// ... and one that never exits is ended by its timeout.
TEST_F(JobsFaults, ChildThatClosesItsOutputAndRunsOnTimesOut) {
  make();
  JobInfo job = run(shell("exec >&- 2>&-; sleep 100", 200));
  EXPECT_EQ(job.status, Status::TimedOut);
  EXPECT_TRUE(group_gone(&loop_, job.pgid));
}

// A daemon that starts its own session (setsid) leaves the job's process group: no signal to
// the group reaches it, so toolhost cannot end it. It keeps the job's stdout open, yet the job
// ends 500 ms after its direct child exits (SPEC 6) instead of waiting for the daemon.
TEST_F(JobsFaults, SetsidDaemonHoldingStdoutDoesNotHoldTheJob) {
  make();
  JobInfo job = run(shell("sh " + fixture("daemon.sh")), 10000);
  EXPECT_EQ(job.status, Status::Succeeded);
  std::istringstream out(job.out.text());
  int daemon = 0;
  std::string word;
  out >> word >> daemon;
  ASSERT_EQ(word, "daemon") << job.out.text();
  ASSERT_GT(daemon, 0);
  EXPECT_LT(job.duration_s, 5);
  EXPECT_TRUE(group_gone(&loop_, job.pgid));
  // The daemon escaped: it is still running, in a session of its own.
  EXPECT_EQ(::kill(daemon, 0), 0) << "the daemon was ended after all";
  EXPECT_EQ(::getsid(daemon), daemon);
  ::kill(daemon, SIGKILL);
  int status = 0;
  ::waitpid(daemon, &status, 0);  // this test is its subreaper
}

// A child that reads stdin gets EOF at once (/dev/null), whatever reads it.
TEST_F(JobsFaults, ChildReadingStdinGetsEofAtOnce) {
  make();
  JobInfo job =
      run(shell("if read line; then echo got; else echo eof; fi; head -c 10 | wc -c", 5000));
  EXPECT_EQ(job.status, Status::Succeeded);
  EXPECT_EQ(job.out.text(), "eof\n0\n");
  EXPECT_LT(job.duration_s, 4);
}

// A new host reads history while the old one (restarted by Lua) still ends its jobs: told so,
// it lists them `interrupted` at once, as the old host records them, and leaves its own jobs
// and other hosts' alone.
TEST_F(JobsFaults, RestartedHostsRunningJobsReadInterrupted) {
  TempDir dir;
  Engine& old_host = make(persistent(dir));
  bool started = false;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  std::string running = old_host.submit(shell("sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return started; }));

  Engine new_host(&loop_, persistent(dir));
  ASSERT_NE(new_host.get(running), nullptr);
  EXPECT_EQ(new_host.get(running)->status, Status::Running);  // its host is alive
  EXPECT_EQ(new_host.interrupt_host(::getpid() + 1, "the host was restarted"), 0u);
  EXPECT_EQ(new_host.get(running)->status, Status::Running);
  EXPECT_EQ(new_host.interrupt_host(::getpid(), "the host was restarted"), 1u);
  EXPECT_EQ(new_host.get(running)->status, Status::Interrupted);
  EXPECT_EQ(new_host.get(running)->error, "the host was restarted");
  EXPECT_EQ(new_host.interrupt_host(::getpid(), "again"), 0u);

  // The old host, stopping, records the same.
  stop();
  bool done = false;
  new_host.shutdown(100, [&] { done = true; });
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  Engine next(&loop_, persistent(dir));
  ASSERT_NE(next.get(running), nullptr);
  EXPECT_EQ(next.get(running)->status, Status::Interrupted);
  done = false;
  next.shutdown(100, [&] { done = true; });
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
}

}  // namespace
}  // namespace toolhost::jobs::testing
