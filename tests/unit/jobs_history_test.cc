// Job history: a restart reads it back, ids stay unique across restarts and engines (and
// their counters survive lost files), lines of the wrong type, cleanup, queries.

#include <set>

#include "jobs/job_json.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsHistory = EngineTest;

TEST_F(JobsHistory, SurvivesARestart) {
  TempDir dir;
  make(persistent(dir));
  JobSpec spec = shell("echo out; echo err >&2; exit 3");
  spec.call_id = "c0ffee";
  spec.buffer_name = "chat.md";
  JobInfo first = run(spec);
  EXPECT_EQ(first.id, "th-1");
  stop();

  Engine& engine = make(persistent(dir));
  const JobInfo* job = engine.get("th-1");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->status, Status::Failed);
  ASSERT_TRUE(job->exit_code);
  EXPECT_EQ(*job->exit_code, 3);
  EXPECT_EQ(job->spec.call_id, "c0ffee");
  EXPECT_EQ(job->spec.tool, "run_terminal_command");
  EXPECT_EQ(job->spec.params, spec.params);
  EXPECT_EQ(job->spec.buffer_name, "chat.md");
  EXPECT_EQ(job->out.bytes(), 4u);
  EXPECT_EQ(job->err.lines(), 1u);
  EXPECT_EQ(job->pgid, first.pgid);
  EXPECT_EQ(job->started_at_ms, first.started_at_ms);
  EXPECT_EQ(job->log_path, dir / "cache/jobs/th-1.log");
  OutputChunk chunk = engine.output("th-1", 0);
  EXPECT_EQ(chunk.data.size(), 8u);
  EXPECT_TRUE(chunk.finished);
  EXPECT_TRUE(chunk.eof);
  // Every line names its host.
  std::vector<nlohmann::json> lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["ev"], "queued");
  EXPECT_EQ(lines[1]["ev"], "started");
  EXPECT_EQ(lines[2]["ev"], "ended");
  for (const auto& line : lines) EXPECT_EQ(line["host"]["pid"], static_cast<int>(::getpid()));
}

// The host holds a finished job's end line until the job's feedback has left (P2), then
// writes it; shutdown writes what is still held.
TEST_F(JobsHistory, HeldEndLinesAreWrittenWhenAskedOrAtShutdown) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  engine.hold_history(true);
  run(shell("exit 0"));
  std::vector<nlohmann::json> lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["ev"], "started");
  engine.release_held();
  lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["ev"], "ended");
  EXPECT_EQ(lines[2]["status"], "succeeded");
  run(shell("exit 4"));
  stop();
  lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[5]["ev"], "ended");
  EXPECT_EQ(lines[5]["exit_code"], 4);
}

// An agent's call started ahead under one id and written as a block with another: the job is
// the new id's, for this engine and in history, and the old id has its older job again.
TEST_F(JobsHistory, ARenamedCallsJobIsFoundByItsNewIdAlsoAfterARestart) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  JobSpec spec = shell("exit 0");
  spec.buffer_name = "chat.md";
  spec.call_id = "predicted";
  const std::string older = run(spec).id;
  const std::string renamed = run(spec).id;
  const JobInfo* job = engine.rename_call(renamed, "written");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->spec.call_id, "written");
  EXPECT_EQ(engine.newest_for_call("chat.md", "written")->id, renamed);
  EXPECT_EQ(engine.newest_for_call("chat.md", "predicted")->id, older);
  EXPECT_EQ(engine.rename_call("th-99", "written"), nullptr);
  stop();

  Engine& restarted = make(persistent(dir));
  EXPECT_EQ(restarted.get(renamed)->spec.call_id, "written");
  EXPECT_EQ(restarted.get(renamed)->status, Status::Succeeded);
  EXPECT_EQ(restarted.newest_for_call("chat.md", "written")->id, renamed);
  EXPECT_EQ(restarted.newest_for_call("chat.md", "predicted")->id, older);
}

// A job that starts at once has started (an MCP call's request is on its way) before its
// history is written: its queued and started lines go in one append (P8). One that waits in
// the queue has its queued line at once.
TEST_F(JobsHistory, AJobStartingAtOnceStartsBeforeItsLinesWhichGoTogether) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.max_concurrent = 1;
  Engine& engine = make(options);
  size_t lines_when_started = 99;
  TaskDone finish;
  JobSpec first;
  first.tool = "everything__echo";
  first.stream = [&](OutputSink, TaskDone done) -> StopHook {
    lines_when_started = history_lines(dir).size();
    finish = std::move(done);
    return nullptr;
  };
  engine.submit(first, {});
  EXPECT_EQ(lines_when_started, 0u);
  std::vector<nlohmann::json> lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["ev"], "queued");
  EXPECT_EQ(lines[1]["ev"], "started");
  const std::string waiting = engine.submit(shell("exit 0"), {});
  lines = history_lines(dir);
  ASSERT_EQ(lines.size(), 3u) << "a job left waiting in the queue is in history at once";
  EXPECT_EQ(lines[2]["ev"], "queued");
  EXPECT_EQ(lines[2]["id"], waiting);
  finish(TaskOutcome{0, "", ""});
  ASSERT_TRUE(run_until(&loop_, [&] { return engine.get(waiting)->status == Status::Succeeded; }));
}

TEST_F(JobsHistory, IdsAreUniqueAcrossRestartsAndConcurrentEngines) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  EXPECT_EQ(run(shell("exit 0")).id, "th-1");
  EXPECT_EQ(engine.refuse(shell("rm -rf /"), "denied").id, "th-2");
  stop();
  make(persistent(dir));
  EXPECT_EQ(run(shell("exit 0")).id, "th-3");
  // A second engine on the same state dir (another Neovim) shares the counter.
  Engine peer(&loop_, persistent(dir));
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.insert(engine_->refuse(shell("x"), "no").id);
    ids.insert(peer.refuse(shell("x"), "no").id);
  }
  EXPECT_EQ(ids.size(), 10u);
  EXPECT_FALSE(ids.count("th-1") || ids.count("th-2") || ids.count("th-3"));
  bool done = false;
  peer.shutdown(100, [&] { done = true; });
  EXPECT_TRUE(run_until(&loop_, [&] { return done; }));
}

TEST_F(JobsHistory, CounterSurvivesALostLockFile) {
  TempDir dir;
  make(persistent(dir));
  run(shell("exit 0"));
  run(shell("exit 0"));
  stop();
  std::filesystem::remove(dir / "state/history.lock");
  make(persistent(dir));
  EXPECT_EQ(run(shell("exit 0")).id, "th-3");
}

TEST_F(JobsHistory, CounterSurvivesALostIdsFile) {
  TempDir dir;
  make(persistent(dir));
  run(shell("exit 0"));
  run(shell("exit 0"));
  stop();
  std::filesystem::remove(dir / "state/history.ids");
  std::filesystem::remove(dir / "state/history.lock");
  make(persistent(dir));
  EXPECT_EQ(run(shell("exit 0")).id, "th-3") << "taken from the history itself";
}

// Hosts from before history.ids kept the next number as text in history.lock, and may still
// run on the same state dir: both counters move together.
TEST_F(JobsHistory, CounterOfOlderHostsIsHonouredAndKeptInStep) {
  TempDir dir;
  std::filesystem::create_directories(dir / "state");
  std::ofstream(dir / "state/history.lock") << "42";
  make(persistent(dir));
  EXPECT_EQ(run(shell("exit 0")).id, "th-42");
  EXPECT_EQ(read_file(dir / "state/history.lock"), "43");
  std::ofstream(dir / "state/history.lock", std::ios::trunc) << "50";  // an older host took 43…49
  EXPECT_EQ(run(shell("exit 0")).id, "th-50");
  EXPECT_EQ(read_file(dir / "state/history.lock"), "51");
}

// A history line edited by hand or written by another version may hold any JSON: a field of the
// wrong type is as good as absent, never an exception that stops the host from starting.
TEST_F(JobsHistory, LinesWithFieldsOfTheWrongTypeAreReadAsMissing) {
  TempDir dir;
  make(persistent(dir));
  const std::string good = run(shell("exit 0")).id;
  stop();
  std::ofstream(dir / "state/history.jsonl", std::ios::app)
      << R"({"id":"th-20","ev":5,"status":[1]})"
      << "\n"
      << R"({"id":"th-21","ev":"started","host":{"pid":"x","start":"y"},"pgid":"z"})"
      << "\n"
      << R"({"id":"th-22","ev":"started","host":{"pid":1e30,"start":-1}})"
      << "\n"
      << R"({"id":"th-23","ev":"ended","status":"succeeded","exit_code":"x","queued_at_ms":"x",)"
      << R"("params":3,"call_id":4,"tool":{},"host":7,"log":[],"cwd":null,"buffer":false})"
      << "\n"
      << R"({"id":"th-24","ev":"started","host":[1,2]})"
      << "\n";
  Engine& engine = make(persistent(dir));
  ASSERT_NE(engine.get(good), nullptr);
  EXPECT_EQ(engine.get(good)->status, Status::Succeeded);
  for (const char* id : {"th-21", "th-22", "th-24"}) {
    ASSERT_NE(engine.get(id), nullptr) << id;
    EXPECT_EQ(engine.get(id)->status, Status::Interrupted) << id;  // no live host of its own
  }
  ASSERT_NE(engine.get("th-23"), nullptr);
  EXPECT_EQ(engine.get("th-23")->status, Status::Succeeded);
  EXPECT_FALSE(engine.get("th-23")->exit_code);
  // Ids go on past every id in the file.
  EXPECT_EQ(run(shell("exit 0")).id, "th-25");
}

TEST_F(JobsHistory, CleanupKeepsTheNewestJobsAndTheirLogs) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.history_max = 3;
  Engine& engine = make(options);
  for (int i = 1; i <= 6; ++i) run(shell("echo " + std::to_string(i)));
  EXPECT_EQ(engine.jobs().total, 3u);
  stop();
  std::set<std::string> ids;
  for (const auto& line : history_lines(dir)) ids.insert(line["id"].get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"th-4", "th-5", "th-6"}));
  for (int i = 1; i <= 6; ++i) {
    EXPECT_EQ(std::filesystem::exists(dir / ("cache/jobs/th-" + std::to_string(i) + ".log")), i > 3)
        << i;
  }
  Engine& again = make(options);
  JobList list = again.jobs();
  ASSERT_EQ(list.total, 3u);
  EXPECT_EQ(list.jobs[0]->id, "th-6");
  EXPECT_EQ(list.jobs[2]->id, "th-4");
}

// A trim re-reads the whole file and cannot drop a live job: with many jobs queued at once it
// waits for as many ends as jobs still live (P8: 1,000 MCP calls), and still bounds the file.
TEST_F(JobsHistory, TrimWaitsForAsManyEndsAsJobsStillLive) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.history_max = 16;  // a trim every 16 ends when few jobs are live
  options.max_concurrent = 100;
  Engine& engine = make(options);
  std::vector<TaskDone> pending;
  size_t finished = 0;
  JobEvents events;
  events.finished = [&](const JobInfo&) { ++finished; };
  for (int i = 0; i < 40; ++i) {
    JobSpec spec;
    spec.tool = "slow";
    spec.async = [&](TaskDone done) { pending.push_back(std::move(done)); };
    engine.submit(std::move(spec), events);
  }
  ASSERT_EQ(pending.size(), 40u);
  auto end_jobs = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) pending[i]({0, "ok", ""});
    ASSERT_TRUE(run_until(&loop_, [&] { return finished == to; }));
  };
  auto ids = [&] {
    std::set<std::string> seen;
    for (const auto& line : history_lines(dir)) seen.insert(line["id"].get<std::string>());
    return seen;
  };
  end_jobs(0, 19);  // 19 ended, 21 live: no trim yet
  EXPECT_EQ(ids().size(), 40u);
  EXPECT_TRUE(ids().count("th-1"));
  end_jobs(19, 40);
  std::set<std::string> newest;
  for (int i = 25; i <= 40; ++i) newest.insert("th-" + std::to_string(i));
  EXPECT_EQ(ids(), newest) << "the trims after the burst keep the newest history_max";
}

TEST_F(JobsHistory, QueryFiltersByStatusNewestFirstWithCounts) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.max_concurrent = 1;
  Engine& engine = make(options);
  run(shell("exit 0"));
  run(shell("exit 1"));
  run(shell("exit 0"));
  bool started = false;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  engine.submit(shell("sleep 100"), events);
  engine.submit(shell("exit 0"), {});
  ASSERT_TRUE(run_until(&loop_, [&] { return started; }));
  JobList all = engine.jobs();
  EXPECT_EQ(all.total, 5u);
  EXPECT_EQ(all.running, 1u);
  EXPECT_EQ(all.queued, 1u);
  ASSERT_EQ(all.jobs.size(), 5u);
  EXPECT_EQ(all.jobs[0]->id, "th-5");
  EXPECT_EQ(all.jobs[4]->id, "th-1");
  JobList done = engine.jobs({{Status::Succeeded}, 1});
  EXPECT_EQ(done.total, 2u);
  ASSERT_EQ(done.jobs.size(), 1u);
  EXPECT_EQ(done.jobs[0]->id, "th-3");
  nlohmann::json json = list_to_json(engine.jobs({{Status::Running, Status::Queued}, 0}));
  EXPECT_EQ(json["total"], 2);
  EXPECT_EQ(json["running"], 1);
  EXPECT_EQ(json["queued"], 1);
  EXPECT_EQ(json["jobs"][0]["status"], "queued");
  EXPECT_EQ(json["jobs"][1]["status"], "running");
}

TEST(JobsJson, JobShapeHasEveryField) {
  JobInfo job;
  job.id = "th-7";
  job.spec = shell("ls");
  job.spec.call_id = "abc";
  job.spec.cwd = "/tmp";
  job.spec.buffer_name = "chat.md";
  job.status = Status::TimedOut;
  job.term_signal = SIGTERM;
  job.pid = job.pgid = 42;
  job.leader_start_min = 5;
  job.leader_start_max = 6;
  job.queued_at_ms = 1;
  job.started_at_ms = 2;
  job.duration_s = 1.5;
  job.out.append("a\nb\n");
  job.log_path = "/c/jobs/th-7.log";
  job.log_bytes = 4;
  nlohmann::json json = job_to_json(job);
  std::set<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{
                      "id",         "call_id", "tool",         "params",       "cwd",
                      "buffer",     "status",  "exit_code",    "signal",       "error",
                      "pid",        "pgid",    "leader_start", "queued_at_ms", "started_at_ms",
                      "duration_s", "stdout",  "stderr",       "log",          "log_bytes"}));
  EXPECT_EQ(json["status"], "timed_out");
  EXPECT_EQ(json["signal"], "SIGTERM");
  EXPECT_TRUE(json["exit_code"].is_null());
  EXPECT_EQ(json["stdout"], (nlohmann::json{{"bytes", 4}, {"lines", 2}}));
  JobInfo back = job_from_json(json);
  EXPECT_EQ(back.number, 7u);
  EXPECT_EQ(job_to_json(back), json);
  EXPECT_EQ(cancel_to_json(true), (nlohmann::json{{"canceled", true}}));
}

}  // namespace
}  // namespace toolhost::jobs::testing
