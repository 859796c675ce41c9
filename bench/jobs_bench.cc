// Job engine against its baselines, in one run (SPEC 9):
//   P3  submit → exec of one job vs a bare posix_spawn (both return once the child has exec'd).
//   P5  draining `head -c 256M /dev/zero` through the engine (capture + 64 MiB log) vs the same
//       bytes piped into `cat > /dev/null`.
//   P6  1,000 `/bin/true` jobs queued at once (max_concurrent = 1000) vs 1,000 posix_spawn +
//       waitpid; overhead per job.
// BM_Ratios, registered last, prints the ratios from the figures of the others.

#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "jobs/engine.h"

extern char** environ;

namespace {

using toolhost::jobs::Engine;
using toolhost::jobs::EngineOptions;
using toolhost::jobs::JobEvents;
using toolhost::jobs::JobInfo;
using toolhost::jobs::JobSpec;
using toolhost::jobs::Status;

struct Figures {
  double p3_engine_us = 0, p3_spawn_us = 0, p3_uv_us = 0;
  double p5_engine_mbs = 0, p5_engine_nolog_mbs = 0, p5_cat_mbs = 0;
  double p6_engine_ms = 0, p6_spawn_ms = 0;
} figures;

// BENCH_SMOKE=1 (CI, scripts/bench): tiny sizes, so that the benchmark runs but proves nothing.
const bool kSmoke = std::getenv("BENCH_SMOKE") != nullptr;
const int kJobs = kSmoke ? 20 : 1000;
const uint64_t kDrainBytes = kSmoke ? (4ull << 20) : (256ull << 20);
int iterations(int full) {
  return kSmoke ? 2 : full;
}

// The median of per-iteration times: a spawn now and then waits ms for a page of the binary
// (a machine under memory reclaim) and would dominate a mean.
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(uint64_t t0) {
  return static_cast<double>(uv_hrtime() - t0) / 1e9;
}

uint64_t peak_rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      uint64_t kb = 0;
      in >> kb;
      return kb;
    }
    std::getline(in, key);
  }
  return 0;
}

std::string temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "toolhost-bench-XXXXXX").string();
  return ::mkdtemp(pattern.data()) ? pattern : std::string();
}

// One loop + engine; runs jobs to completion and shuts down cleanly.
class Harness {
 public:
  explicit Harness(EngineOptions options) {
    uv_loop_init(&loop_);
    engine_ = std::make_unique<Engine>(&loop_, std::move(options));
  }
  ~Harness() {
    bool done = false;
    engine_->shutdown(100, [&] { done = true; });
    while (!done) uv_run(&loop_, UV_RUN_ONCE);
    engine_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
  Engine& engine() { return *engine_; }
  void run_until(const std::function<bool()>& done) {
    while (!done()) uv_run(&loop_, UV_RUN_ONCE);
  }

 private:
  uv_loop_t loop_{};
  std::unique_ptr<Engine> engine_;
};

JobSpec command(std::vector<std::string> argv) {
  JobSpec spec;
  spec.argv = std::move(argv);
  spec.timeout_ms = 0;
  return spec;
}

pid_t bare_spawn(const char* path, char* const argv[]) {
  pid_t pid = 0;
  if (posix_spawn(&pid, path, nullptr, nullptr, argv, environ) != 0) return -1;
  return pid;
}

// P3 ------------------------------------------------------------------------------------------

void BM_P3_EngineSubmitToExec(benchmark::State& state) {
  Harness h(EngineOptions{});
  double total = 0;
  std::vector<double> samples;
  for (auto _ : state) {
    bool done = false;
    JobEvents events;
    events.finished = [&](const JobInfo&) { done = true; };
    uint64_t t0 = uv_hrtime();
    h.engine().submit(command({"/bin/true"}), events);  // posix_spawn returns after exec
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
    samples.push_back(s);
    h.run_until([&] { return done; });
  }
  (void)total;
  figures.p3_engine_us = median(samples) * 1e6;
  state.counters["p50_us"] = figures.p3_engine_us;
}
BENCHMARK(BM_P3_EngineSubmitToExec)
    ->UseManualTime()
    ->Iterations(iterations(300))
    ->Unit(benchmark::kMicrosecond);

void BM_P3_BarePosixSpawn(benchmark::State& state) {
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  double total = 0;
  std::vector<double> samples;
  for (auto _ : state) {
    uint64_t t0 = uv_hrtime();
    pid_t pid = bare_spawn("/bin/true", argv);  // glibc: CLONE_VFORK, returns after exec
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
    samples.push_back(s);
    int status;
    waitpid(pid, &status, 0);
  }
  (void)total;
  figures.p3_spawn_us = median(samples) * 1e6;
  state.counters["p50_us"] = figures.p3_spawn_us;
}
BENCHMARK(BM_P3_BarePosixSpawn)
    ->UseManualTime()
    ->Iterations(iterations(300))
    ->Unit(benchmark::kMicrosecond);

// What libuv's fork-based uv_spawn costs by itself (no engine): the floor for the engine.
void BM_P3_BareUvSpawn(benchmark::State& state) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  double total = 0;
  std::vector<double> samples;
  for (auto _ : state) {
    uv_process_t process;
    uv_process_options_t options{};
    uv_stdio_container_t stdio[3];
    for (auto& s : stdio) s.flags = UV_IGNORE;
    options.file = argv[0];
    options.args = argv;
    options.flags = UV_PROCESS_DETACHED;
    options.stdio = stdio;
    options.stdio_count = 3;
    bool done = false;
    process.data = &done;
    options.exit_cb = [](uv_process_t* p, int64_t, int) {
      *static_cast<bool*>(p->data) = true;
      uv_close(reinterpret_cast<uv_handle_t*>(p), nullptr);
    };
    uint64_t t0 = uv_hrtime();
    uv_spawn(&loop, &process, &options);
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
    samples.push_back(s);
    while (!done) uv_run(&loop, UV_RUN_ONCE);
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  uv_loop_close(&loop);
  (void)total;
  figures.p3_uv_us = median(samples) * 1e6;
  state.counters["p50_us"] = figures.p3_uv_us;
}
BENCHMARK(BM_P3_BareUvSpawn)
    ->UseManualTime()
    ->Iterations(iterations(300))
    ->Unit(benchmark::kMicrosecond);

// P5 ------------------------------------------------------------------------------------------

void drain(benchmark::State& state, bool with_log, double& out_mbs) {
  std::string dir = with_log ? temp_dir() : std::string();
  EngineOptions options;
  options.cache_dir = dir;
  double total = 0;
  {
    Harness h(options);
    for (auto _ : state) {
      bool done = false;
      uint64_t bytes = 0;
      JobEvents events;
      events.finished = [&](const JobInfo& info) {
        bytes = info.out.bytes();
        done = true;
      };
      uint64_t t0 = uv_hrtime();
      h.engine().submit(command({"head", "-c", std::to_string(kDrainBytes), "/dev/zero"}), events);
      h.run_until([&] { return done; });
      double s = seconds_since(t0);
      state.SetIterationTime(s);
      total += s;
      if (bytes != kDrainBytes) state.SkipWithError("short read");
    }
  }
  if (!dir.empty()) std::filesystem::remove_all(dir);
  out_mbs =
      static_cast<double>(kDrainBytes) * static_cast<double>(state.iterations()) / total / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(kDrainBytes) * state.iterations());
  state.counters["peak_rss_MiB"] = static_cast<double>(peak_rss_kb()) / 1024;
}

void BM_P5_EngineDrainWithLog(benchmark::State& state) {
  drain(state, true, figures.p5_engine_mbs);
}
BENCHMARK(BM_P5_EngineDrainWithLog)
    ->UseManualTime()
    ->Iterations(iterations(5))
    ->Unit(benchmark::kMillisecond);

void BM_P5_EngineDrainNoLog(benchmark::State& state) {
  drain(state, false, figures.p5_engine_nolog_mbs);
}
BENCHMARK(BM_P5_EngineDrainNoLog)
    ->UseManualTime()
    ->Iterations(iterations(5))
    ->Unit(benchmark::kMillisecond);

void BM_P5_CatToDevNull(benchmark::State& state) {
  std::string script = "head -c " + std::to_string(kDrainBytes) + " /dev/zero | cat > /dev/null";
  char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), script.data(), nullptr};
  double total = 0;
  for (auto _ : state) {
    uint64_t t0 = uv_hrtime();
    pid_t pid = bare_spawn("/bin/sh", argv);
    int status;
    waitpid(pid, &status, 0);
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
  }
  figures.p5_cat_mbs =
      static_cast<double>(kDrainBytes) * static_cast<double>(state.iterations()) / total / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(kDrainBytes) * state.iterations());
}
BENCHMARK(BM_P5_CatToDevNull)
    ->UseManualTime()
    ->Iterations(iterations(5))
    ->Unit(benchmark::kMillisecond);

// P6 ------------------------------------------------------------------------------------------

void BM_P6_EngineThousandQueued(benchmark::State& state) {
  EngineOptions options;
  options.max_concurrent = kJobs;  // SPEC 9: max_concurrent = jobs started at once
  options.history_max = 2 * kJobs;
  double total = 0;
  Harness h(options);
  for (auto _ : state) {
    int finished = 0;
    int ok = 0;
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < kJobs; ++i) {
      JobEvents events;
      events.finished = [&](const JobInfo& info) {
        ++finished;
        ok += info.status == Status::Succeeded;
      };
      h.engine().submit(command({"/bin/true"}), events);
    }
    h.run_until([&] { return finished == kJobs; });
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
    if (ok != kJobs) state.SkipWithError("a job failed");
  }
  figures.p6_engine_ms = total / static_cast<double>(state.iterations()) / kJobs * 1e3;
  state.counters["ms_per_job"] = figures.p6_engine_ms;
}
BENCHMARK(BM_P6_EngineThousandQueued)
    ->UseManualTime()
    ->Iterations(iterations(3))
    ->Unit(benchmark::kMillisecond);

void BM_P6_BarePosixSpawnThousand(benchmark::State& state) {
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  double total = 0;
  for (auto _ : state) {
    uint64_t t0 = uv_hrtime();
    std::vector<pid_t> pids;
    for (int i = 0; i < kJobs; ++i) pids.push_back(bare_spawn("/bin/true", argv));
    for (pid_t pid : pids) {
      int status;
      waitpid(pid, &status, 0);
    }
    double s = seconds_since(t0);
    state.SetIterationTime(s);
    total += s;
  }
  figures.p6_spawn_ms = total / static_cast<double>(state.iterations()) / kJobs * 1e3;
  state.counters["ms_per_job"] = figures.p6_spawn_ms;
}
BENCHMARK(BM_P6_BarePosixSpawnThousand)
    ->UseManualTime()
    ->Iterations(iterations(3))
    ->Unit(benchmark::kMillisecond);

// Ratios --------------------------------------------------------------------------------------

void BM_Ratios(benchmark::State& state) {
  for (auto _ : state) {
  }
  const Figures& f = figures;
  state.counters["P3_ratio"] = f.p3_engine_us / f.p3_spawn_us;
  state.counters["P3_ratio_vs_uv_spawn"] = f.p3_engine_us / f.p3_uv_us;
  state.counters["P5_ratio"] = f.p5_engine_mbs / f.p5_cat_mbs;
  state.counters["P5_ratio_nolog"] = f.p5_engine_nolog_mbs / f.p5_cat_mbs;
  state.counters["P6_overhead_ms"] = f.p6_engine_ms - f.p6_spawn_ms;
  std::fprintf(
      stderr,
      "P3 submit->exec p50 %.0f us vs posix_spawn %.0f us: ratio %.2f (target <= 2); bare uv_spawn "
      "%.0f us: ratio %.2f\n"
      "P5 drain %.0f MB/s (no log %.0f) vs cat %.0f MB/s: ratio %.2f (no log %.2f; "
      "target >= 0.5)\n"
      "P6 %.3f ms/job vs posix_spawn %.3f ms/job: overhead %.3f ms/job (target <= 1)\n",
      f.p3_engine_us, f.p3_spawn_us, f.p3_engine_us / f.p3_spawn_us, f.p3_uv_us,
      f.p3_engine_us / f.p3_uv_us, f.p5_engine_mbs, f.p5_engine_nolog_mbs, f.p5_cat_mbs,
      f.p5_engine_mbs / f.p5_cat_mbs, f.p5_engine_nolog_mbs / f.p5_cat_mbs, f.p6_engine_ms,
      f.p6_spawn_ms, f.p6_engine_ms - f.p6_spawn_ms);
}
BENCHMARK(BM_Ratios)->Iterations(1);

}  // namespace
