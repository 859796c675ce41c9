// Jobs of other hosts sharing the history (another Neovim's): read as they run, followed until
// they end, `interrupted` once their host died, and never trimmed (with their log) meanwhile.

#include <sys/wait.h>

#include <set>

#include "jobs/job_json.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsHistory = EngineTest;
using JobsPeers = EngineTest;

// Another Neovim's host, in a child process: it starts `sleep 100` as a job of the history
// under `dir` and says so, then waits for a word from the test: kExit ends the process with
// the job running (a crash: no `ended` line), kCancel cancels the job, waits until its
// `ended` line is written, and then exits.
class PeerHost {
 public:
  static constexpr char kExit = 'x';
  static constexpr char kCancel = 'c';

  explicit PeerHost(const TempDir& dir) {
    int ready[2], go[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(go[1]);
      ::_exit(serve(dir, ready[1], go[0]));
    }
    ::close(ready[1]);
    ::close(go[0]);
    char byte = 0;
    ready_ = pid_ > 0 && ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
    go_ = go[1];
  }
  ~PeerHost() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (go_ >= 0) ::close(go_);
  }

  bool ready() const { return ready_; }
  // Tells the host what to do and waits until it has exited; true when it exited 0.
  bool end(char how) {
    if (::write(go_, &how, 1) != 1) return false;
    int status = 0;
    reaped_ = ::waitpid(pid_, &status, 0) == pid_;
    return reaped_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  static int serve(const TempDir& dir, int ready, int go) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    // Never destroyed: the process ends as a crashed host would, or right after its last line.
    auto* engine = new Engine(&loop, persistent(dir));
    bool started = false, finished = false;
    JobEvents events;
    events.started = [&](const JobInfo&) { started = true; };
    events.finished = [&](const JobInfo&) { finished = true; };
    std::string id = engine->submit(shell("sleep 100"), events);
    if (!started || ::write(ready, "k", 1) != 1) return 1;
    char how = 0;
    if (::read(go, &how, 1) != 1) return 2;
    if (how == kCancel && (!engine->cancel(id) || !run_until(&loop, [&] { return finished; }))) {
      return 3;
    }
    return 0;
  }

  pid_t pid_ = -1;
  int go_ = -1;
  bool ready_ = false;
  bool reaped_ = false;
};

// The last history line of job `id`.
nlohmann::json last_line_of(const TempDir& dir, const std::string& id) {
  nlohmann::json last;
  for (const auto& line : history_lines(dir)) {
    if (line["id"] == id) last = line;
  }
  return last;
}

TEST_F(JobsHistory, JobsRunningWhenTheirHostDiedBecomeInterrupted) {
  TempDir dir;
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t host = ::fork();
  ASSERT_GE(host, 0);
  if (host == 0) {
    // A host that crashes with a job running: no shutdown, no `ended` line.
    ::close(report[0]);
    uv_loop_t loop;
    uv_loop_init(&loop);
    auto* engine = new Engine(&loop, persistent(dir));
    bool started = false;
    JobEvents events;
    events.started = [&](const JobInfo&) { started = true; };
    engine->submit(shell("sleep 100"), events);
    JobEvents never;
    engine->submit(shell("exit 0"), never);
    ::_exit(started && ::write(report[1], "k", 1) == 1 ? 0 : 1);
  }
  ::close(report[1]);
  char byte = 0;
  EXPECT_EQ(::read(report[0], &byte, 1), 1);
  ::close(report[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(host, &status, 0), host);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  EngineOptions options = persistent(dir);
  options.max_concurrent = 1;
  Engine& engine = make(options);
  const JobInfo* running = engine.get("th-1");
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->status, Status::Interrupted);
  EXPECT_GT(running->pgid, 0);
  const JobInfo* queued = engine.get("th-2");
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->status, Status::Interrupted);
  EXPECT_EQ(history_lines(dir).back()["status"], "interrupted");
  // The orphaned `sleep` is this test's to clean up (the dead host's Lua side would).
  int pgid = running->pgid;
  ::kill(-pgid, SIGKILL);
  EXPECT_TRUE(group_gone(&loop_, pgid));
  // Read again by a third host: still interrupted, not written twice.
  stop();
  make(options);
  EXPECT_EQ(engine_->get("th-1")->status, Status::Interrupted);
  size_t interrupted = 0;
  for (const auto& line : history_lines(dir))
    interrupted += line.value("status", "") == "interrupted";
  EXPECT_EQ(interrupted, 2u);
}

TEST_F(JobsHistory, ALivePeersRunningJobIsLeftAlone) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  bool started = false;
  JobEvents events;
  events.started = [&](const JobInfo&) { started = true; };
  std::string id = engine.submit(shell("sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return started; }));
  {
    Engine peer(&loop_, persistent(dir));
    ASSERT_NE(peer.get(id), nullptr);
    EXPECT_EQ(peer.get(id)->status, Status::Running);
    EXPECT_FALSE(peer.cancel(id)) << "a peer's job is not ours to signal";
    bool done = false;
    peer.shutdown(100, [&] { done = true; });
    EXPECT_TRUE(run_until(&loop_, [&] { return done; }));
  }
  EXPECT_EQ(engine.get(id)->status, Status::Running);
}

// Regression: a peer's job read as running stayed so for good, and :ToolOutput on it asked for
// more every 200 ms without end. Once its host is dead it is `interrupted`, for this host and,
// through the line this host writes, for every host after.
TEST_F(JobsPeers, APeersJobBecomesInterruptedWhenItsHostDies) {
  TempDir dir;
  PeerHost peer(dir);
  ASSERT_TRUE(peer.ready());
  Engine& engine = make(persistent(dir));
  const JobInfo* job = engine.get("th-1");
  ASSERT_NE(job, nullptr);
  ASSERT_EQ(job->status, Status::Running);
  const int pgid = job->pgid;
  engine.refresh_peers();
  EXPECT_EQ(job->status, Status::Running) << "its host still runs";
  EXPECT_FALSE(engine.output("th-1", 0).finished);

  ASSERT_TRUE(peer.end(PeerHost::kExit));
  engine.refresh_peers();
  EXPECT_EQ(job->status, Status::Interrupted);
  EXPECT_EQ(job->error, "the host that ran this job exited");
  OutputChunk chunk = engine.output("th-1", 0);
  EXPECT_TRUE(chunk.finished);
  EXPECT_TRUE(chunk.eof);
  nlohmann::json last = last_line_of(dir, "th-1");
  EXPECT_EQ(last["ev"], "ended");
  EXPECT_EQ(last["status"], "interrupted");
  EXPECT_EQ(last["host"]["pid"], static_cast<int>(::getpid()));
  // The dead host's `sleep` is this test's to clean up (that host's Lua side would).
  ::kill(-pgid, SIGKILL);
  EXPECT_TRUE(group_gone(&loop_, pgid));
}

// What a host wrote before it died is what happened: a job it ended is not `interrupted`.
TEST_F(JobsPeers, APeersJobThatEndedBeforeItsHostDiedKeepsItsStatus) {
  TempDir dir;
  PeerHost peer(dir);
  ASSERT_TRUE(peer.ready());
  Engine& engine = make(persistent(dir));
  ASSERT_NE(engine.get("th-1"), nullptr);
  ASSERT_EQ(engine.get("th-1")->status, Status::Running);
  ASSERT_TRUE(peer.end(PeerHost::kCancel));
  engine.refresh_peers();
  EXPECT_EQ(engine.get("th-1")->status, Status::Canceled);
  EXPECT_EQ(last_line_of(dir, "th-1")["status"], "canceled");
  EXPECT_TRUE(engine.output("th-1", 0).finished);
}

// A live peer's job is followed through the lines its host writes, to its end.
TEST_F(JobsPeers, ALivePeersJobIsFollowedUntilItEnds) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  bool begun = false, finished = false;
  JobEvents events;
  // Its output, not its start: the log must hold "begun" before the cancel.
  events.output = [&](const JobInfo&, Stream, std::string_view) { begun = true; };
  events.finished = [&](const JobInfo&) { finished = true; };
  std::string id = engine.submit(shell("echo begun; sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return begun; }));
  Engine peer(&loop_, persistent(dir));
  ASSERT_NE(peer.get(id), nullptr);
  peer.refresh_peers();
  EXPECT_EQ(peer.get(id)->status, Status::Running);
  ASSERT_TRUE(engine.cancel(id));
  ASSERT_TRUE(run_until(&loop_, [&] { return finished; }));
  peer.refresh_peers();
  EXPECT_EQ(peer.get(id)->status, Status::Canceled);
  EXPECT_EQ(peer.get(id)->log_bytes, engine.get(id)->log_bytes);
  OutputChunk chunk = peer.output(id, 0);
  EXPECT_EQ(chunk.data, "begun\n");
  EXPECT_TRUE(chunk.eof);
  bool done = false;
  peer.shutdown(100, [&] { done = true; });
  EXPECT_TRUE(run_until(&loop_, [&] { return done; }));
}

// Regression: a history trim in one Neovim deleted the log of another Neovim's running job
// (and its lines, so the job's `ended` line later stood alone). A job queued or running on a
// live host is kept, whatever its number; the trim keeps the newest history_max others.
TEST_F(JobsPeers, ATrimKeepsALiveHostsRunningJobAndItsLog) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.history_max = 2;
  Engine& engine = make(options);
  bool begun = false, finished = false;
  JobEvents events;
  events.output = [&](const JobInfo&, Stream, std::string_view) { begun = true; };
  events.finished = [&](const JobInfo&) { finished = true; };
  std::string running = engine.submit(shell("echo begun; sleep 100"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return begun; }));
  for (int i = 2; i <= 4; ++i) run(shell("echo " + std::to_string(i)));
  const std::string log = engine.get(running)->log_path;
  ASSERT_TRUE(std::filesystem::exists(log));

  // Another Neovim's host starts on the same state dir: its start trims history to 2 jobs.
  Engine peer(&loop_, options);
  std::set<std::string> ids;
  for (const auto& line : history_lines(dir)) ids.insert(line["id"].get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{running, "th-3", "th-4"}));
  EXPECT_TRUE(std::filesystem::exists(log));
  EXPECT_FALSE(std::filesystem::exists(dir / "cache/jobs/th-2.log"));
  EXPECT_TRUE(std::filesystem::exists(dir / "cache/jobs/th-3.log"));
  EXPECT_EQ(engine.output(running, 0).data, "begun\n");

  // Once it has ended it goes like any other.
  ASSERT_TRUE(engine.cancel(running));
  ASSERT_TRUE(run_until(&loop_, [&] { return finished; }));
  bool done = false;
  peer.shutdown(100, [&] { done = true; });  // its shutdown trims again
  EXPECT_TRUE(run_until(&loop_, [&] { return done; }));
  EXPECT_FALSE(std::filesystem::exists(log));
}

}  // namespace
}  // namespace toolhost::jobs::testing
