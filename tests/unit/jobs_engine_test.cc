// Job engine against real child processes: exit statuses, signals, timeouts, cancellation,
// process groups, the queue.

#include <csignal>
#include <set>

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

TEST_F(JobsEngine, QueueIsFifoAndBoundedByMaxConcurrent) {
  EngineOptions options;
  options.max_concurrent = 2;
  Engine& engine = make(options);
  std::vector<std::string> started;
  size_t most_running = 0;
  int finished = 0;
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    JobEvents events;
    events.started = [&](const JobInfo& info) {
      started.push_back(info.id);
      most_running = std::max(most_running, engine.running());
    };
    events.finished = [&](const JobInfo&) { ++finished; };
    ids.push_back(engine.submit(shell("exit 0"), events));
  }
  EXPECT_EQ(engine.running(), 2u);
  EXPECT_EQ(engine.queued(), 4u);
  ASSERT_TRUE(run_until(&loop_, [&] { return finished == 6; }));
  EXPECT_EQ(started, ids);
  EXPECT_EQ(most_running, 2u);
}

TEST_F(JobsEngine, CancelingAQueuedJobFinishesItCanceled) {
  EngineOptions options;
  options.max_concurrent = 1;
  Engine& engine = make(options);
  std::vector<std::string> log;
  auto events_for = [&](const std::string& name) {
    JobEvents events;
    events.started = [&log, name](const JobInfo&) { log.push_back(name + " started"); };
    events.finished = [&log, name](const JobInfo& info) {
      log.push_back(name + " " + std::string(to_string(info.status)));
    };
    return events;
  };
  std::string first = engine.submit(shell("sleep 100"), events_for("first"));
  std::string second = engine.submit(shell("exit 0"), events_for("second"));
  EXPECT_EQ(engine.get(second)->status, Status::Queued);
  EXPECT_TRUE(engine.cancel(second));
  EXPECT_EQ(engine.get(second)->status, Status::Canceled);
  EXPECT_EQ(engine.queued(), 0u);
  EXPECT_TRUE(engine.cancel(first));
  ASSERT_TRUE(run_until(&loop_, [&] { return log.size() == 3; }));
  EXPECT_EQ(log, (std::vector<std::string>{"first started", "second canceled", "first canceled"}));
  EXPECT_FALSE(engine.cancel("th-999"));
}

// Regression: a queued job has no log file yet, and output() answered an error, so the
// :ToolOutput view stopped following it. It is an empty chunk until the job runs.
TEST_F(JobsEngine, OutputOfAQueuedJobIsEmptyNotAnError) {
  TempDir dir;
  EngineOptions options;
  options.max_concurrent = 1;
  options.cache_dir = dir / "cache";
  Engine& engine = make(options);
  std::string first = engine.submit(shell("sleep 100"), {});
  bool finished = false;
  JobEvents events;
  events.finished = [&](const JobInfo&) { finished = true; };
  std::string second = engine.submit(shell("echo hello"), events);
  ASSERT_EQ(engine.get(second)->status, Status::Queued);

  for (uint64_t since : {0, 7}) {
    OutputChunk chunk = engine.output(second, since);
    EXPECT_EQ(chunk.error, "");
    EXPECT_EQ(chunk.data, "");
    EXPECT_EQ(chunk.next, since);
    EXPECT_FALSE(chunk.finished);
    EXPECT_FALSE(chunk.eof);
  }

  ASSERT_TRUE(engine.cancel(first));
  ASSERT_TRUE(run_until(&loop_, [&] { return finished; }));
  OutputChunk chunk = engine.output(second, 0);
  EXPECT_EQ(chunk.error, "");
  EXPECT_EQ(chunk.data, "hello\n");
  EXPECT_TRUE(chunk.finished);
  EXPECT_TRUE(chunk.eof);
}

// The log file comes with the first output: a job that writes nothing creates no file (one
// inode less per job), and its output is empty, not an error.
TEST_F(JobsEngine, LogFileIsCreatedByTheFirstOutput) {
  TempDir dir;
  EngineOptions options;
  options.cache_dir = dir / "cache";
  Engine& engine = make(options);
  JobInfo quiet = run(shell("exit 0"));
  ASSERT_FALSE(quiet.log_path.empty());
  EXPECT_FALSE(std::filesystem::exists(quiet.log_path));
  OutputChunk chunk = engine.output(quiet.id, 0);
  EXPECT_EQ(chunk.error, "");
  EXPECT_EQ(chunk.data, "");
  EXPECT_TRUE(chunk.eof);

  JobInfo talking = run(shell("echo hi"));
  EXPECT_EQ(read_file(talking.log_path), "hi\n");
  chunk = engine.output(talking.id, 0);
  EXPECT_EQ(chunk.error, "");
  EXPECT_EQ(chunk.data, "hi\n");
  EXPECT_TRUE(chunk.eof);
}

TEST_F(JobsEngine, ThousandJobsThroughAQueueOfEightLeakNoFd) {
  TempDir dir;
  {
    // libuv opens its SIGCHLD pipes at the first spawn of a loop: count after that one.
    make();
    run(shell("exit 0"));
    stop();
  }
  size_t before = open_fds();
  {
    EngineOptions options;
    options.max_concurrent = 8;
    options.state_dir = dir / "state";
    options.cache_dir = dir / "cache";
    options.history_max = 100;
    Engine& engine = make(options);
    int finished = 0;
    int succeeded = 0;
    size_t most_running = 0;
    for (int i = 0; i < 1000; ++i) {
      JobEvents events;
      events.started = [&](const JobInfo&) {
        most_running = std::max(most_running, engine.running());
      };
      events.finished = [&](const JobInfo& info) {
        ++finished;
        succeeded += info.status == Status::Succeeded;
      };
      JobSpec spec;
      spec.argv = {"/bin/true"};
      engine.submit(spec, events);
    }
    ASSERT_TRUE(run_until(
        &loop_, [&] { return finished == 1000; }, 120000));
    EXPECT_EQ(succeeded, 1000);
    EXPECT_EQ(most_running, 8u);
    EXPECT_EQ(engine.jobs().total, 100u) << "history_max bounds what stays in memory";
    stop();
  }
  uv_run(&loop_, UV_RUN_DEFAULT);
  EXPECT_EQ(open_fds(), before);
}

TEST_F(JobsEngine, ShutdownInterruptsQueuedKillsRunningAndIsNotDelayedByLeftovers) {
  EngineOptions options;
  options.max_concurrent = 2;
  options.kill_grace_ms = 20000;  // far longer than the shutdown grace
  Engine& engine = make(options);
  JobInfo leftover = run(shell("trap '' TERM; sleep 100 >/dev/null 2>&1 & exit 0"));
  ASSERT_EQ(leftover.status, Status::Succeeded);
  std::vector<std::string> finished;
  auto events = [&] {
    JobEvents e;
    e.finished = [&](const JobInfo& info) {
      finished.push_back(info.id + " " + std::string(to_string(info.status)));
    };
    return e;
  };
  std::string stubborn = engine.submit(shell("trap '' TERM; sleep 100"), events());
  std::string plain = engine.submit(shell("sleep 100"), events());
  std::string queued = engine.submit(shell("exit 0"), events());
  bool done = false;
  uint64_t t0 = uv_hrtime();
  engine.shutdown(300, [&] { done = true; });
  ASSERT_TRUE(run_until(
      &loop_, [&] { return done; }, 10000));
  double seconds = static_cast<double>(uv_hrtime() - t0) / 1e9;
  EXPECT_LT(seconds, 2.0) << "shutdown waited for a kill grace longer than its own";
  // The host stopped while they waited or ran: SPEC 4's `interrupted`, as Lua shows them.
  EXPECT_EQ(engine.get(queued)->status, Status::Interrupted);
  EXPECT_EQ(engine.get(plain)->status, Status::Interrupted);
  EXPECT_EQ(engine.get(stubborn)->status, Status::Interrupted);
  EXPECT_EQ(finished.size(), 3u);
  EXPECT_EQ(finished.front(), queued + " interrupted");
  EXPECT_TRUE(group_gone(&loop_, leftover.pgid));
  EXPECT_TRUE(group_gone(&loop_, engine.get(stubborn)->pgid));
  // After shutdown nothing starts.
  bool late = false;
  JobEvents e;
  e.finished = [&](const JobInfo& info) { late = info.status == Status::Canceled; };
  engine.submit(shell("exit 0"), e);
  EXPECT_TRUE(late);
  engine_.reset();
}

TEST_F(JobsEngine, SeveralEnginesInOneLoopKeepTheirOwnJobs) {
  Engine& engine = make();
  Engine other(&loop_, EngineOptions{});
  JobInfo a = run(shell("exit 1"));
  EXPECT_EQ(a.id, "th-1");
  EXPECT_EQ(other.get("th-1"), nullptr);
  bool done = false;
  other.shutdown(100, [&] { done = true; });
  EXPECT_TRUE(done);
  EXPECT_NE(engine.get("th-1"), nullptr);
}

// Whether a call of a buffer already ran is asked for every call of a reply: the engine keeps
// the newest job of each (buffer, call) pair, across a restart from history and a trim.
TEST_F(JobsEngine, NewestJobOfACallIsFoundByBufferAndCallId) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.history_max = 2;
  auto call = [](const std::string& buffer, const std::string& call_id) {
    JobSpec spec = shell("true");
    spec.buffer_name = buffer;
    spec.call_id = call_id;
    return spec;
  };
  Engine* engine = &make(options);
  EXPECT_EQ(engine->newest_for_call("a.md", "c1"), nullptr);
  run(call("a.md", "c1"));
  const std::string second = run(call("a.md", "c1")).id;
  const std::string other = run(call("b.md", "c1")).id;
  ASSERT_NE(engine->newest_for_call("a.md", "c1"), nullptr);
  EXPECT_EQ(engine->newest_for_call("a.md", "c1")->id, second);
  EXPECT_EQ(engine->newest_for_call("b.md", "c1")->id, other);
  EXPECT_EQ(engine->newest_for_call("a.md", "c2"), nullptr);
  EXPECT_EQ(engine->newest_for_call("", "c1"), nullptr);
  stop();
  engine = &make(options);
  ASSERT_NE(engine->newest_for_call("b.md", "c1"), nullptr);
  EXPECT_EQ(engine->newest_for_call("b.md", "c1")->id, other);
  ASSERT_NE(engine->newest_for_call("a.md", "c1"), nullptr);
  EXPECT_EQ(engine->newest_for_call("a.md", "c1")->id, second);
  // Two more jobs trim the oldest two from memory (history_max 2): a.md's goes with them.
  run(call("x.md", "c9"));
  run(call("x.md", "c8"));
  EXPECT_EQ(engine->newest_for_call("a.md", "c1"), nullptr);
  ASSERT_NE(engine->newest_for_call("x.md", "c9"), nullptr);
  EXPECT_EQ(engine->newest_for_call("x.md", "c9")->spec.buffer_name, "x.md");
}

}  // namespace
}  // namespace toolhost::jobs::testing
