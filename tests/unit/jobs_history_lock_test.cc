// history.lock held or lost by other hosts: a peer holding it never blocks this host's loop,
// and a writer killed while holding it, or in the middle of a large append, costs nothing
// but its own line. Processes synchronise through pipes.

#include <poll.h>
#include <sys/stat.h>

#include <set>

#include "base/fs.h"
#include "jobs/history.h"
#include "test_history_processes.h"

namespace toolhost::jobs::testing {
namespace {

using nlohmann::json;

// A peer that takes history.lock, says so on `held`, and keeps it until `release` is written
// or closed. (It gives up after 20 s, so that a host that waits for the lock fails the test
// instead of hanging it.)
pid_t lock_holder(const std::string& state, const Pipe& held, const Pipe& release) {
  return fork_child([&] {
    base::make_dirs(state);
    int fd = ::open((state + "/history.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0 || !held.send("h")) return 2;
    struct pollfd wait = {release.fds[0], POLLIN, 0};
    ::poll(&wait, 1, 20000);
    return 0;
  });
}

using JobsHistoryLock = EngineTest;

TEST_F(JobsHistoryLock, APeerHoldingTheLockNeverBlocksTheLoop) {
  TempDir dir;
  const std::string state = dir / "state";
  {
    // Some history first, so that start-up has something to read and trim.
    EngineOptions options;
    options.state_dir = state;
    make(options);
    for (int i = 0; i < 30; ++i) engine_->refuse(shell("x"), "no");
    stop();
  }
  Pipe held, release;
  pid_t peer = lock_holder(state, held, release);
  ASSERT_GT(peer, 0);
  ASSERT_TRUE(held.wait_byte());

  int fired = 0;
  uv_timer_t tick;
  uv_timer_init(&loop_, &tick);
  tick.data = &fired;
  uv_timer_start(
      &tick, [](uv_timer_t* t) { ++*static_cast<int*>(t->data); }, 1, 1);
  BlockMeter meter;
  EngineOptions options;
  options.state_dir = state;
  options.history_max = 25;  // the start-up trim drops th-1 … th-5 once it runs
  meter.time("start", [&] { make(options); });  // load() and a waiting trim()
  std::set<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    meter.time("allocate", [&] { ids.insert(engine_->refuse(shell("x"), "no").id); });
  }
  EXPECT_TRUE(run_until(&loop_, [&] { return fired >= 5; }));
  EXPECT_TRUE(lock_is_held(state)) << "the peer let go: the calls above waited for it";
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(*ids.begin(), "th-31") << "ids continue after the history's";
  EXPECT_EQ(read_raw(state + "/history.jsonl").lines.size(), 30u * 2) << "written under no lock";

  ASSERT_TRUE(release.send("r"));
  EXPECT_EQ(wait_child(peer), 0);
  // Once the lock is free the retry timer writes every pending line, and the start-up trim
  // keeps the newest 25 jobs: the 20 new ones and th-26 … th-30.
  std::set<std::string> expected = ids;
  for (int n = 26; n <= 30; ++n) expected.insert(job_id(n));
  auto written = [&] {
    std::set<std::string> in_file;
    for (const json& line : read_raw(state + "/history.jsonl").lines) in_file.insert(line["id"]);
    return in_file == expected;
  };
  EXPECT_TRUE(run_until(&loop_, written)) << "pending lines never written or never trimmed";
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  stop();
  for (const auto& [what, us] : meter.longest_us) {
    std::printf("lock held by a peer: longest %s %llu us\n", what.c_str(),
                static_cast<unsigned long long>(us));
    RecordProperty("longest_" + what + "_us", std::to_string(us));
  }
}

TEST_F(JobsHistoryLock, AWriterKilledWhileHoldingTheLockFreesItAndItsIdsStayTaken) {
  TempDir dir;
  const std::string state = dir / "state";
  Pipe ids_pipe, release;
  pid_t writer = fork_child([&] {
    uv_loop_t loop;
    uv_loop_init(&loop);
    History history(&loop, state);
    std::string numbers;
    for (int i = 0; i < 10; ++i) {
      uint64_t n = history.allocate([](uint64_t n) {
        return json{{"ev", "queued"}, {"id", job_id(n)}};
      });
      numbers += std::to_string(n) + " ";
    }
    // Dies holding the lock: as if killed inside an append.
    int fd = ::open((state + "/history.lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0 || !ids_pipe.send(numbers)) return 2;
    ids_pipe.close_write();
    struct pollfd wait = {release.fds[0], POLLIN, 0};
    ::poll(&wait, 1, 20000);
    return 0;
  });
  ASSERT_GT(writer, 0);
  ids_pipe.close_write();
  std::istringstream numbers(ids_pipe.read_all());
  std::set<uint64_t> dead_ids;
  for (uint64_t n; numbers >> n;) dead_ids.insert(n);
  ASSERT_EQ(dead_ids.size(), 10u);
  ASSERT_TRUE(lock_is_held(state));

  History survivor(&loop_, state);
  uint64_t during = survivor.allocate([](uint64_t n) {
    return json{{"ev", "queued"}, {"id", job_id(n)}};
  });
  survivor.append({{"ev", "ended"}, {"id", job_id(during)}});
  EXPECT_EQ(::kill(writer, SIGKILL), 0);
  EXPECT_EQ(wait_child(writer), 128 + SIGKILL);
  EXPECT_FALSE(lock_is_held(state)) << "the kernel releases a dead process's flock";
  auto survivor_written = [&] {
    size_t lines = 0;
    for (const json& line : read_raw(state + "/history.jsonl").lines)
      lines += line["id"] == job_id(during);
    return lines == 2;
  };
  EXPECT_TRUE(run_until(&loop_, survivor_written));
  survivor.close();

  // A restarted host never hands out the dead writer's ids again.
  History restarted(&loop_, state);
  restarted.load();
  uint64_t after = restarted.allocate([](uint64_t n) {
    return json{{"ev", "queued"}, {"id", job_id(n)}};
  });
  EXPECT_FALSE(dead_ids.count(during));
  EXPECT_GT(after, *dead_ids.rbegin());
  EXPECT_GT(after, during);
  restarted.close();
  EXPECT_TRUE(read_raw(state + "/history.jsonl").torn.empty());
}

TEST_F(JobsHistoryLock, AWriterKilledInALargeAppendCostsOnlyItsOwnLine) {
  TempDir dir;
  const std::string state = dir / "state";
  const std::string path = state + "/history.jsonl";
  // Lines of one fixed length, so that a file size that is not a multiple of it means a write
  // is under way; 8 MiB each, so that a write spans many pages and a kill can land inside it.
  // They end a job that was never queued: when the kill lands in the second line or later (the
  // poll below missed the first under load), th-1 must still read as queued by a dead writer.
  json big = {{"ev", "ended"}, {"id", "th-9"}, {"pad", std::string(8 << 20, 'k')}};
  const off_t line_size = static_cast<off_t>(big.dump().size() + 1);
  Pipe started;
  pid_t writer = fork_child([&] {
    uv_loop_t loop;
    uv_loop_init(&loop);
    History history(&loop, state);
    history.allocate([](uint64_t n) { return json{{"ev", "queued"}, {"id", job_id(n)}}; });
    if (!started.send(std::to_string(read_file(path).size()) + "\n")) return 2;
    for (;;) history.append(big);
  });
  ASSERT_GT(writer, 0);
  off_t before = 0;
  {
    std::string first;
    for (char c = 0; c != '\n' && ::read(started.fds[0], &c, 1) == 1;) first += c;
    before = std::stoll(first);
  }
  ASSERT_GT(before, 0);
  // Polls the size (no event announces "inside write()") until it is mid-line, then kills.
  struct stat st {};
  uint64_t deadline = uv_hrtime() + 20'000'000'000ull;
  auto mid_line = [&] {
    return ::stat(path.c_str(), &st) == 0 && (st.st_size - before) % line_size != 0;
  };
  while (!mid_line() && uv_hrtime() < deadline) {
  }
  ASSERT_EQ(::kill(writer, SIGKILL), 0);
  EXPECT_EQ(wait_child(writer), 128 + SIGKILL);
  std::string text = read_file(path);
  bool torn = !text.empty() && text.back() != '\n';
  std::printf("killed mid-append: the file ends %s (%zu bytes)\n",
              torn ? "in a torn line" : "at a line end", text.size());
  RecordProperty("torn_tail", torn ? "yes" : "no");

  History survivor(&loop_, state);
  survivor.load();
  uint64_t number = survivor.allocate([](uint64_t n) {
    return json{{"ev", "queued"}, {"id", job_id(n)}, {"q", 1}};
  });
  survivor.append({{"ev", "ended"}, {"id", job_id(number)}, {"e", 1}});
  EXPECT_TRUE(run_until(&loop_, [&] { return read_file(path).back() == '\n'; }));
  survivor.close();
  RawHistory raw = read_raw(path);
  EXPECT_LE(raw.torn.size(), 1u) << "only the killed writer's last line may be torn";
  // load() found th-1 (queued by the dead writer) and wrote it `interrupted`: that line, the
  // first after the torn one, must not have been glued onto it.
  size_t interrupted = 0;
  for (const json& line : raw.lines) {
    interrupted += line["id"] == "th-1" && line.value("status", "") == "interrupted";
  }
  EXPECT_EQ(interrupted, 1u) << "the line written after the torn one was lost";
  if (!raw.torn.empty()) {
    EXPECT_EQ(raw.torn[0].rfind("{\"ev\":\"ended\",\"id\":\"th-9\"", 0), 0u);
  }
  History reader(&loop_, state);
  bool found = false;
  for (const json& record : reader.load()) {
    if (record["id"] == job_id(number)) {
      found = true;
      EXPECT_TRUE(record.contains("q") && record.contains("e")) << record.dump();
    }
  }
  EXPECT_TRUE(found) << "the survivor's lines were glued onto the torn one";
  EXPECT_GT(number, 1u) << "the dead writer's id was handed out again";
  reader.close();
}

}  // namespace
}  // namespace toolhost::jobs::testing
