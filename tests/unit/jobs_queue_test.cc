// The engine's queue and bookkeeping: FIFO under max_concurrent, canceling queued jobs,
// a thousand jobs through it, shutdown, several engines on one loop, the newest job of a call.

#include <csignal>
#include <set>

#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsEngine = EngineTest;

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

// `toolhost mcp serve` stopped 2 s (the kill grace) after its agent left while a call ran: the
// canceled job's grace timer kept its Process open long after the group was gone.
TEST_F(JobsEngine, AJobThatDiedAtSigtermDoesNotHoldShutdownForItsKillGrace) {
  EngineOptions options;
  options.kill_grace_ms = 600000;  // a grace nobody waits out within the test's guard
  Engine& engine = make(options);
  bool finished = false;
  JobEvents events;
  events.finished = [&](const JobInfo&) { finished = true; };
  std::string id = engine.submit(shell("echo started; exec sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return engine.get(id)->status == Status::Running; }));
  // The agent's cancel, then at once its disconnect's shutdown: both while the job still runs.
  ASSERT_TRUE(engine.cancel(id));
  bool done = false;
  engine.shutdown(600000, [&] { done = true; });
  EXPECT_TRUE(run_until(
      &loop_, [&] { return done; }, 10000))
      << "shutdown waited for the grace of a group that is gone";
  EXPECT_TRUE(finished);
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
