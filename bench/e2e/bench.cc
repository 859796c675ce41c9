#include "bench.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "measure.h"

namespace toolhost::bench {
namespace {

// BENCH_PERF=DIR: `perf record -g` on the host while a toolhost scenario runs, into
// DIR/NAME.perf (what the notes' profiles come from).
class HostProfile {
 public:
  HostProfile(pid_t host, const std::string& name) {
    const char* dir = std::getenv("BENCH_PERF");
    if (!dir || host <= 0) return;
    const char* graph = std::getenv("BENCH_PERF_CALL_GRAPH");  // e.g. dwarf
    pid_ = spawn({"/usr/bin/perf", "record", "-q", "--call-graph", graph ? graph : "fp", "-p",
                  std::to_string(host), "-o", std::string(dir) + "/" + name + ".perf"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // perf attaches
  }
  ~HostProfile() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGINT);
    wait_for_pid(pid_);
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace

namespace fs = std::filesystem;

Sizes smoke_sizes() {
  Sizes s;
  s.p1_jobs = 2;
  s.p1_bytes = 4ull << 20;
  s.p1_idle_s = 0.3;
  s.p2_jobs = 10;
  s.p2_base_ms = 100;
  s.p2_spread_ms = 100;
  s.p3_runs = 5;
  s.p10_runs = 5;
  s.p5_bytes = 16ull << 20;
  s.p6_jobs = 20;
  s.p7_idle_s = 0.5;
  s.p7_ready_runs = 3;
  s.attach_mb = 2;
  s.attach_calls = 20;
  s.p9_calls = 5;
  s.p9_stream_bytes = 1ull << 20;
  s.p9_stream_min_s = 0.1;
  s.p9_idle_s = 0.2;
  s.p8_calls = 5;
  s.p8_queued = 20;
  s.p8_cache_runs = 1;
  s.p11_lines = 4000;
  s.p11_files = 20;
  return s;
}

Bench::Bench(const Options& options, Sizes sizes) : o_(options), s_(sizes) {
  // tmpfs when there is one: the stamps and the child's pages never wait on a disk.
  std::string pattern =
      std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/toolhost-bench-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  // Every workload execs the child from the temporary directory, so that every path
  // measured pays the same for it, and the least.
  child_ = dir_ + "/toolhost_bench_child";
  fs::copy_file(options.child, child_);
  fs::permissions(child_, fs::perms::owner_all);
}

Bench::~Bench() {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

json Bench::scenario(const std::string& function, json args, int deadline_s) {
  const std::string name = args.value("name", function);
  // BENCH_PERF_NVIM=1: Neovim instead of the host, in every scenario.
  const bool nvim = std::getenv("BENCH_PERF_NVIM") != nullptr;
  HostProfile profile(nvim ? nvim_pid_ : args.value("via", "") == "toolhost" ? host_pid_ : 0, name);
  return run_scenario(function, std::move(args), deadline_s);
}

json Bench::run_scenario(const std::string& function, json args, int deadline_s) {
  const std::string name = args.value("name", function);
  try {
    nvim_->lua("_G.toolhost_bench." + function + "(...)", json::array({args}));
  } catch (const std::exception& e) {
    throw std::runtime_error(name + ": starting: " + e.what());
  }
  json report;
  try {
    report = nvim_->wait_for("bench", std::chrono::seconds(o_.smoke ? 60 : deadline_s));
  } catch (const std::exception& e) {
    // Errors in autocmd callbacks only show in :messages.
    json messages = nvim_->request("nvim_exec", json::array({"messages", true}));
    throw std::runtime_error(name + ": " + e.what() + "; Neovim's messages:\n" +
                             messages.get<std::string>());
  }
  if (report.value("name", "") != name) {
    throw std::runtime_error("expected the report of " + name + ", got " + report.dump());
  }
  return report;
}

json Bench::rss_window(uint64_t from, uint64_t to, uint64_t before_nvim_kb) {
  uint64_t nvim_min = UINT64_MAX, nvim_max = 0, host_max = 0;
  for (const auto& r : probe_->rss(from, to)) {
    if (r.nvim_kb) nvim_min = std::min(nvim_min, r.nvim_kb);
    nvim_max = std::max(nvim_max, r.nvim_kb);
    host_max = std::max(host_max, r.host_kb);
  }
  if (nvim_min == UINT64_MAX) nvim_min = 0;
  return {{"nvim_before_mb", before_nvim_kb / 1024.0},
          {"nvim_growth_mb", (static_cast<double>(nvim_max) - before_nvim_kb) / 1024.0},
          {"nvim_min_mb", nvim_min / 1024.0},
          {"nvim_max_mb", nvim_max / 1024.0},
          {"host_max_mb", host_max / 1024.0}};
}

json Bench::run() {
  json setup = {{"binary", o_.binary}, {"auto_run", false},     {"log_level", "warn"},
                {"shell", "sh"},       {"run_all", "parallel"}, {"confirm_run_all", false},
                {"timeout_ms", 0},     {"keymaps", false}};
  // BENCH_JOB_NICE=0 runs the jobs at the editor's priority instead of setup()'s default.
  if (const char* nice = std::getenv("BENCH_JOB_NICE")) setup["job_nice"] = std::atoi(nice);
  nvim_ = std::make_unique<NvimHarness>(setup);
  nvim_->listen("bench");
  nvim_->lua(R"(
    local source, args = ...
    _G.toolhost_bench = dofile(source .. "/bench/e2e/scenarios.lua")
    _G.toolhost_bench.init(args)
  )",
             json::array({o_.source,
                          {{"chan", nvim_->channel()},
                           {"setup", setup},
                           {"dir", dir_},
                           {"child", child_},
                           {"runner", o_.source + "/bench/baseline/runner.lua"}}}));
  json info = nvim_->lua(R"(
    local v = vim.version()
    return { pid = vim.fn.getpid(), server = vim.v.servername,
             version = ("%d.%d.%d"):format(v.major, v.minor, v.patch),
             job_nice = require("toolhost.config").options.job_nice }
  )");
  nvim_pid_ = info["pid"].get<pid_t>();
  f_["neovim"] = info["version"];
  f_["job_nice"] = info["job_nice"];
  probe_ = std::make_unique<Probe>(info["server"].get<std::string>(), nvim_pid_);
  probe_->start();

  // BENCH_ONLY=p3,p5 runs those alone (P7 always: the others need the host's pid).
  const char* only = std::getenv("BENCH_ONLY");
  auto wanted = [&](const char* key, const char* what) {
    if (only && std::string(",").append(only).append(",").find(std::string(",") + key + ",") ==
                    std::string::npos) {
      return false;
    }
    std::cerr << "bench: " << what << "\n";
    return true;
  };
  std::cerr << "bench: P7 idle host\n";
  p7_idle_host();
  p7_ready_from_c();
  if (wanted("p3", "P3 :ToolRun -> exec")) p3_exec();
  if (wanted("p10", "P10 :ToolRun -> exec in the sandbox")) p10_sandboxed_exec();
  if (wanted("p2", "P2 exit -> feedback")) p2_exit_feedback();
  if (wanted("p6", "P6 many calls")) p6_many();
  if (wanted("p5", "P5 drain")) p5_drain();
  if (wanted("p1", "P1 responsiveness")) p1_responsiveness();
  if (wanted("p1_attach", "P1 attaching a big chat")) p1_attach_stall();
  if (wanted("p9", "P9 agents through toolhost mcp serve")) p9_agents();
  if (wanted("p8", "P8 MCP echo through toolhost vs the TypeScript SDK")) p8_mcp();
  if (wanted("p11", "P11 a gcc log into the quickfix list")) p11_quickfix();
  probe_->stop();
  nvim_.reset();
  return f_;
}

}  // namespace toolhost::bench
