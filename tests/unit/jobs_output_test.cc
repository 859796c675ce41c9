// A job's output through the engine: its log file, capped, and read incrementally (what
// jobs.output and :ToolOutput do), for jobs queued, running, ended, or that never ran.

#include <sstream>

#include "jobs/job_json.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

using JobsHistory = EngineTest;
using JobsEngine = EngineTest;

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

TEST_F(JobsHistory, IncrementalReadsReconstructTheExactStream) {
  TempDir dir;
  Engine& engine = make(persistent(dir));
  std::string read;
  uint64_t next = 0;
  bool done = false;
  int partial_reads = 0;
  JobEvents events;
  std::string id;
  events.output = [&](const JobInfo&, Stream, std::string_view) {
    OutputChunk chunk = engine.output(id, next, 777);
    EXPECT_TRUE(chunk.error.empty()) << chunk.error;
    EXPECT_FALSE(chunk.eof);
    EXPECT_EQ(chunk.next, next + chunk.data.size());
    read += chunk.data;
    next = chunk.next;
    ++partial_reads;
  };
  events.finished = [&](const JobInfo&) { done = true; };
  id = engine.submit(
      shell("i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo out$i; echo err$i >&2; done"), events);
  ASSERT_TRUE(run_until(&loop_, [&] { return done; }));
  for (;;) {
    OutputChunk chunk = engine.output(id, next, 777);
    read += chunk.data;
    next = chunk.next;
    if (chunk.eof) break;
    ASSERT_FALSE(chunk.data.empty()) << "no progress before eof";
  }
  EXPECT_GT(partial_reads, 0);
  const JobInfo* job = engine.get(id);
  EXPECT_EQ(read.size(), job->out.bytes() + job->err.bytes());
  EXPECT_EQ(read, read_file(job->log_path));
  // Each stream's bytes appear in order.
  std::istringstream lines(read);
  std::string line;
  int out = 0, err = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("out", 0) == 0) {
      EXPECT_EQ(line, "out" + std::to_string(++out));
    } else if (line.rfind("err", 0) == 0) {
      EXPECT_EQ(line, "err" + std::to_string(++err));
    }
  }
  EXPECT_EQ(out, 3000);
  EXPECT_EQ(err, 3000);
  nlohmann::json end = output_to_json(engine.output(id, next));
  EXPECT_EQ(end, (nlohmann::json{{"data", ""}, {"next", next}, {"finished", true}, {"eof", true}}));
  EXPECT_EQ(output_to_json(engine.output("th-99", 0))["error"], "no job th-99");
}

TEST_F(JobsHistory, LogStopsAtItsCapWithALineSayingWhatWasDropped) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.log_max_bytes = 1000;
  make(options);
  JobInfo job = run(shell("head -c 5000 /dev/zero | tr '\\0' a"));
  EXPECT_EQ(job.out.bytes(), 5000u);
  std::string log = read_file(job.log_path);
  EXPECT_EQ(log, std::string(1000, 'a') +
                     "\n[toolhost: 4000 bytes dropped: the log is capped at 1000 bytes]\n");
  EXPECT_EQ(job.log_bytes, log.size());
  EXPECT_EQ(job.out.text(), std::string(5000, 'a')) << "memory keeps what the log dropped";
}

TEST_F(JobsHistory, GigabyteOfOutputKeepsMemoryBoundedAndCountsExact) {
  TempDir dir;
  EngineOptions options = persistent(dir);
  options.log_max_bytes = 4 << 20;
  make(options);
  uint64_t peak = rss_bytes();
  int chunks = 0;
  JobInfo seen;
  bool done = false;
  JobEvents events;
  events.output = [&](const JobInfo&, Stream, std::string_view) {
    if (++chunks % 512 == 0) peak = std::max(peak, rss_bytes());
  };
  events.finished = [&](const JobInfo& info) {
    seen = info;
    done = true;
  };
  uint64_t t0 = uv_hrtime();
  engine_->submit(shell("head -c 1G /dev/zero; printf 'x\\n' >&2", 120000), events);
  ASSERT_TRUE(run_until(
      &loop_, [&] { return done; }, 120000));
  double seconds = static_cast<double>(uv_hrtime() - t0) / 1e9;
  RecordProperty("seconds", std::to_string(seconds));
  std::printf("1 GiB drained in %.2f s, peak RSS %.1f MiB\n", seconds,
              static_cast<double>(peak) / (1 << 20));
  EXPECT_EQ(seen.status, Status::Succeeded);
  EXPECT_EQ(seen.out.bytes(), uint64_t{1} << 30);
  EXPECT_EQ(seen.out.lines(), 0u);
  EXPECT_EQ(seen.err.bytes(), 2u);
  EXPECT_EQ(seen.out.head().size(), Capture::kHeadBytes);
  EXPECT_EQ(seen.out.tail().size(), Capture::kTailBytes);
  EXPECT_EQ(seen.out.omitted_bytes(),
            (uint64_t{1} << 30) - Capture::kHeadBytes - Capture::kTailBytes);
  EXPECT_LE(seen.log_bytes, (4u << 20) + 200);
  if (!kSanitized) {
    EXPECT_LT(peak, 64u << 20);
  }
}

// Regression: a job canceled while queued never ran and has no log, and jobs.output answered
// an error for it. Its output is empty and complete, with or without a log directory.
TEST_F(JobsEngine, OutputOfAJobCanceledWhileQueuedIsEmptyAndComplete) {
  TempDir dir;
  for (bool logs : {true, false}) {
    EngineOptions options;
    options.max_concurrent = 1;
    if (logs) options.cache_dir = dir / "cache";
    Engine& engine = make(options);
    std::string first = engine.submit(shell("sleep 100"), {});
    std::string second = engine.submit(shell("echo never"), {});
    ASSERT_TRUE(engine.cancel(second));
    for (uint64_t since : {0, 5}) {
      OutputChunk chunk = engine.output(second, since);
      EXPECT_EQ(chunk.error, "") << logs;
      EXPECT_EQ(chunk.data, "") << logs;
      EXPECT_EQ(chunk.next, since) << logs;
      EXPECT_TRUE(chunk.finished) << logs;
      EXPECT_TRUE(chunk.eof) << logs;
    }
    // A job that ran without a log directory has nothing to read: that stays an error.
    ASSERT_TRUE(engine.cancel(first));
    if (!logs) {
      ASSERT_TRUE(run_until(&loop_, [&] { return engine.running() == 0; }));
      EXPECT_EQ(engine.output(first, 0).error, "job " + first + " has no log");
    }
    stop();
  }
}

}  // namespace
}  // namespace toolhost::jobs::testing
