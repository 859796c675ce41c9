// What a job's end leaves for later while the host holds it (Engine::hold_history, P2): the
// leader's zombie, its pipes, its history line and the sweep of its leftovers wait for
// release_held(), which the host calls a moment after the job's feedback left; nothing of it
// is lost when the engine shuts down first.
#include <fstream>
#include <string>

#include "jobs/held_work.h"
#include "jobs/job_json.h"
#include "jobs/reaping.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

// The state letter of /proc/<pid>/stat ('Z' for a zombie); ' ' once the pid is gone.
char process_state(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? ' ' : text[paren + 2];
}

class JobsHeldEnd : public EngineTest {
 protected:
  Engine& held() {
    Engine& engine = make(persistent(dir_));
    engine.hold_history(true);
    return engine;
  }
  TempDir dir_;
};

TEST_F(JobsHeldEnd, AnEndedJobsZombieAndPipesWaitForTheRelease) {
  Engine& engine = held();
  const size_t fds_before = open_fds();
  JobInfo ended = run(shell("exit 3"));
  ASSERT_EQ(ended.exit_code, 3) << "the status is read before the reap";
  EXPECT_TRUE(engine.holds_work());
  if (reaping() == Reaping::Pidfd) {
    EXPECT_EQ(process_state(ended.pid), 'Z') << "reaped only by the release";
  }
  const size_t fds_held = open_fds();
  EXPECT_GT(fds_held, fds_before) << "its pipes are open until the release";
  EXPECT_EQ(history_lines(dir_).size(), 2u) << "queued and started: its end line is held";

  engine.release_held();
  EXPECT_FALSE(engine.holds_work());
  EXPECT_EQ(process_state(ended.pid), ' ') << "reaped";
  EXPECT_EQ(open_fds(), fds_held - (reaping() == Reaping::Pidfd ? 3 : 2)) << "pipes, pidfd";
  std::vector<nlohmann::json> lines = history_lines(dir_);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["ev"], "ended");
  EXPECT_EQ(lines[2]["exit_code"], 3);
}

TEST_F(JobsHeldEnd, LeftoversOfAnEndedJobGoOnceTheReleaseReapedItsLeader) {
  Engine& engine = held();
  JobInfo ended = run(shell("sleep 100 >/dev/null 2>&1 & exit 0"));
  ASSERT_EQ(ended.status, Status::Succeeded);
  EXPECT_EQ(::kill(-ended.pgid, 0), 0) << "the leftover runs until the release";
  engine.release_held();
  EXPECT_TRUE(group_gone(&loop_, ended.pgid));
}

TEST_F(JobsHeldEnd, AShutdownReleasesWhatIsHeld) {
  held();
  JobInfo ended = run(shell("exit 0"));
  stop();  // TearDown checks that every handle closed
  EXPECT_EQ(process_state(ended.pid), ' ') << "reaped";
  std::vector<nlohmann::json> lines = history_lines(dir_);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["status"], "succeeded");
}

TEST_F(JobsHeldEnd, TheHostsReleaseComesByItselfAfterTheTurnThatHeldIt) {
  Engine& engine = make(persistent(dir_));
  HeldWorkRelease release(&loop_, engine);
  JobInfo ended = run(shell("exit 0"));
  EXPECT_TRUE(engine.holds_work()) << "held through the turn that saw the exit";
  EXPECT_TRUE(run_until(
      &loop_, [&] { return !engine.holds_work(); }, 5000))
      << "released by the timer the next turn starts";
  EXPECT_EQ(process_state(ended.pid), ' ') << "reaped";
  EXPECT_EQ(history_lines(dir_).size(), 3u);
  release.close();
  uv_run(&loop_, UV_RUN_NOWAIT);  // its close callbacks, before it goes out of scope
}

TEST(JobJson, AnEndLineIsTheJobsStateWithoutWhatItsQueuedLineSaid) {
  JobInfo job;
  job.id = "th-7";
  job.spec.call_id = "c1";
  job.spec.tool = "bash";
  job.spec.params = {{"command", "ls"}};
  job.spec.cwd = "/tmp";
  job.spec.buffer_name = "chat.md";
  job.status = Status::Failed;
  job.exit_code = 2;
  job.pid = job.pgid = 42;
  job.queued_at_ms = 1;
  job.started_at_ms = 2;
  job.inline_log = "out\n";
  const nlohmann::json host = {{"pid", 9}, {"start", 10}};

  nlohmann::json expected = job_to_json(job);
  for (const char* key : {"call_id", "tool", "params", "cwd", "buffer", "queued_at_ms"}) {
    expected.erase(key);
  }
  expected["ev"] = "ended";
  expected["host"] = host;
  expected["output"] = "out\n";
  EXPECT_EQ(end_line(job, host), expected);
  job.inline_log.clear();
  expected.erase("output");
  EXPECT_EQ(end_line(job, host), expected) << "no output key without an inline log";
}

}  // namespace
}  // namespace toolhost::jobs::testing
