// Job engine against real child processes: exit statuses, signals, timeouts, cancellation,
// process groups.

#include <csignal>

#include "jobs/host_id.h"
#include "jobs/job_json.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsEngine = EngineTest;

TEST_F(JobsEngine, ExitZeroSucceeds) {
  make();
  JobInfo job = run(shell("exit 0"));
  EXPECT_EQ(job.status, Status::Succeeded);
  ASSERT_TRUE(job.exit_code);
  EXPECT_EQ(*job.exit_code, 0);
  EXPECT_FALSE(job.term_signal);
  EXPECT_GT(job.pid, 0);
  EXPECT_EQ(job.pgid, job.pid);
  EXPECT_GT(job.started_at_ms, 0);
  EXPECT_GT(job.duration_s, 0);
}

TEST_F(JobsEngine, NonZeroExitFailsWithTheCode) {
  make();
  JobInfo job = run(shell("exit 3"));
  EXPECT_EQ(job.status, Status::Failed);
  ASSERT_TRUE(job.exit_code);
  EXPECT_EQ(*job.exit_code, 3);
}

TEST_F(JobsEngine, ExitCodesTheSpecCallsOkSucceed) {
  make();
  JobSpec no_match = shell("exit 1");
  no_match.ok_exit_codes = {0, 1};  // grep: nothing matched
  EXPECT_EQ(run(no_match).status, Status::Succeeded);
  JobSpec error = shell("exit 2");
  error.ok_exit_codes = {0, 1};
  EXPECT_EQ(run(error).status, Status::Failed);
}

TEST_F(JobsEngine, DeathBySignalIsRecorded) {
  make();
  JobInfo job = run(shell("kill -USR1 $$"));
  EXPECT_EQ(job.status, Status::Failed);
  EXPECT_FALSE(job.exit_code);
  ASSERT_TRUE(job.term_signal);
  EXPECT_EQ(*job.term_signal, SIGUSR1);
}

TEST_F(JobsEngine, MissingBinaryFailsFromTheLoopNotInsideSubmit) {
  Engine& engine = make();
  bool finished = false;
  bool started = false;
  JobInfo seen;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  events.finished = [&](const JobInfo& info) {
    finished = true;
    seen = info;
  };
  JobSpec spec;
  spec.argv = {"/nonexistent/toolhost-no-such-binary"};
  std::string id = engine.submit(spec, events);
  EXPECT_FALSE(finished) << "finished fired before submit returned the id";
  ASSERT_TRUE(run_until(&loop_, [&] { return finished; }));
  EXPECT_FALSE(started);
  EXPECT_EQ(seen.id, id);
  EXPECT_EQ(seen.status, Status::Failed);
  EXPECT_NE(seen.error.find("cannot start"), std::string::npos) << seen.error;
  EXPECT_EQ(engine.running(), 0u);
}

TEST_F(JobsEngine, StdinIsDevNull) {
  make();
  // With an inherited stdin, `cat` would wait for input until the timeout.
  JobInfo job = run(shell("cat; echo done", 5000));
  EXPECT_EQ(job.status, Status::Succeeded);
  EXPECT_EQ(job.out.text(), "done\n");
}

TEST_F(JobsEngine, EnvironmentAndCwdFollowSpec6) {
  make();
  TempDir dir;
  ScopedEnv inherited("TOOLHOST_TEST_INHERITED", "yes");
  ScopedEnv term("TERM", "xterm-256color");
  JobSpec spec = shell(
      "echo $TOOLHOST $TERM $NO_COLOR $PAGER $GIT_PAGER $TOOLHOST_TEST_INHERITED "
      "$EXTRA; pwd");
  spec.cwd = dir.path();
  spec.env = {{"EXTRA", "x"}, {"PAGER", "less"}};
  JobInfo job = run(spec);
  EXPECT_EQ(job.out.text(),
            "1 dumb 1 less cat yes x\n" + std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST_F(JobsEngine, StreamsAreSeparateWithExactCounts) {
  make();
  JobInfo job = run(shell("printf 'a\\nbb\\nccc' ; printf 'e1\\ne2\\n' >&2"));
  EXPECT_EQ(job.out.text(), "a\nbb\nccc");
  EXPECT_EQ(job.out.bytes(), 8u);
  EXPECT_EQ(job.out.lines(), 2u);
  EXPECT_EQ(job.err.text(), "e1\ne2\n");
  EXPECT_EQ(job.err.bytes(), 6u);
  EXPECT_EQ(job.err.lines(), 2u);
}

TEST_F(JobsEngine, TimeoutTerminatesTheGroup) {
  make();
  JobInfo job = run(shell("sleep 100", 100));
  EXPECT_EQ(job.status, Status::TimedOut);
  ASSERT_TRUE(job.term_signal);
  EXPECT_EQ(*job.term_signal, SIGTERM);
  EXPECT_LT(job.duration_s, 5);
  EXPECT_TRUE(group_gone(&loop_, job.pgid));
}

TEST_F(JobsEngine, ChildIgnoringSigtermIsKilledAfterGrace) {
  EngineOptions options;
  options.kill_grace_ms = 300;
  Engine& engine = make(options);
  JobInfo seen;
  bool done = false;
  JobEvents events;
  std::string id;
  events.output = [&](const JobInfo&, Stream, std::string_view data) {
    if (data.find("ready") != std::string_view::npos) {
      EXPECT_TRUE(engine.cancel(id));
    }
  };
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  // SIG_IGN survives exec: `sleep` ignores SIGTERM too.
  id = engine.submit(shell("trap '' TERM; echo ready; sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_EQ(seen.status, Status::Canceled);
  ASSERT_TRUE(seen.term_signal);
  EXPECT_EQ(*seen.term_signal, SIGKILL);
  EXPECT_GE(seen.duration_s, 0.3);
  EXPECT_TRUE(group_gone(&loop_, seen.pgid));
}

TEST_F(JobsEngine, CancelKillsGrandchildren) {
  Engine& engine = make();
  bool started = false;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  std::string id = engine.submit(shell("sleep 100 & sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return started; }));
  int pgid = engine.get(id)->pgid;
  ASSERT_TRUE(engine.cancel(id));
  ASSERT_TRUE(run_until(&loop_, [&] { return is_finished(engine.get(id)->status); }));
  EXPECT_EQ(engine.get(id)->status, Status::Canceled);
  EXPECT_TRUE(group_gone(&loop_, pgid)) << "a grandchild survived";
}

// Neovim tells the job's group from a stranger's that got its number by the leader's start time,
// which the job carries from its spawn (no read of /proc while the job execs).
TEST_F(JobsEngine, RunningJobCarriesBoundsOfItsLeadersStartTime) {
  Engine& engine = make();
  bool started = false;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  const uint64_t before_submit = boot_ticks();
  std::string id = engine.submit(shell("exec sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return started; }));
  const uint64_t after_start = boot_ticks();
  const JobInfo& job = *engine.get(id);
  const uint64_t start = process_start_time(job.pgid);
  ASSERT_GT(start, 0u);
  EXPECT_LE(job.leader_start_min, start);
  EXPECT_GE(job.leader_start_max, start);
  // Bounds taken around the spawn itself, so within what the test saw from outside. (It once
  // asked for at most one tick between them: a spawn on a loaded machine takes longer.)
  EXPECT_GE(job.leader_start_min, before_submit);
  EXPECT_LE(job.leader_start_max, after_start);
  // And they travel with the job's record.
  JobInfo back = job_from_json(job_to_json(job));
  EXPECT_EQ(back.leader_start_min, job.leader_start_min);
  EXPECT_EQ(back.leader_start_max, job.leader_start_max);
  ASSERT_TRUE(engine.cancel(id));
  ASSERT_TRUE(run_until(&loop_, [&] { return is_finished(engine.get(id)->status); }));
}

TEST_F(JobsEngine, LeftoverGrandchildIgnoringSigtermIsKilledAfterTheJobEnds) {
  make();
  // The background child lets go of the pipes: the job ends at once, with a survivor in its
  // group that ignores SIGTERM.
  JobInfo job = run(shell("trap '' TERM; sleep 100 >/dev/null 2>&1 & exit 0"));
  EXPECT_EQ(job.status, Status::Succeeded);
  EXPECT_TRUE(group_gone(&loop_, job.pgid)) << "the leftover grandchild survived";
}

TEST_F(JobsEngine, GrandchildHoldingThePipesEndsTheJob500msAfterExit) {
  make();
  JobInfo job = run(shell("echo hi; sleep 100 & exit 0"));
  EXPECT_EQ(job.status, Status::Succeeded);
  EXPECT_EQ(job.out.text(), "hi\n");
  EXPECT_TRUE(group_gone(&loop_, job.pgid));
}

TEST_F(JobsEngine, LateCancelDoesNotTurnAnExitZeroIntoCanceled) {
  Engine& engine = make();
  JobInfo seen;
  bool done = false;
  JobEvents events;
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  // The shell exits 0 while its background sleep still holds the pipes: the job lingers.
  std::string id = engine.submit(shell("sleep 100 & exit 0"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return engine.get(id)->exit_code.has_value(); }));
  EXPECT_FALSE(done);
  EXPECT_FALSE(engine.cancel(id));
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_EQ(seen.status, Status::Succeeded);
  EXPECT_FALSE(engine.cancel(id)) << "a finished job cannot be canceled";
  EXPECT_EQ(engine.get(id)->status, Status::Succeeded);
  EXPECT_TRUE(group_gone(&loop_, seen.pgid));
}

}  // namespace
}  // namespace toolhost::jobs::testing
