#pragma once
// The end-to-end benchmarks (driver.cc says what each figure is): one Neovim with the plugin,
// the probe of P1, and every scenario's figures in one JSON object. Each scenario is a member
// defined in the file of its kind (flood.cc: P1 and P5; latency.cc: P2, P3, P6, P7; agents.cc:
// P9; mcp.cc: P8; quickfix.cc: P11).
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/nvim_harness.h"
#include "probe.h"

namespace toolhost::bench {

using nlohmann::json;
using toolhost::e2e::NvimHarness;

struct Options {
  bool smoke = false;
  std::string binary;              // the toolhost binary (Release)
  std::string child;               // toolhost_bench_child
  std::string source;              // the checkout (plugin, bench/)
  std::string out;                 // writes OUT.md and OUT.json
  std::vector<std::string> micro;  // Google Benchmark JSON files to include
  bool p1_trace = false;           // BENCH_P1_TRACE: print what delayed P1's slow answers
};

// Sizes: the issue's, or tiny ones for CI's smoke run.
struct Sizes {
  int p1_jobs = 8;
  uint64_t p1_bytes = 256ull << 20;  // each: 2 GiB in all
  double p1_idle_s = 3;
  int p2_jobs = 100;
  int p2_base_ms = 1000, p2_spread_ms = 1000;
  int p3_runs = 100;
  int p10_runs = 100;
  uint64_t p5_bytes = 1ull << 30;
  int p6_jobs = 1000;
  double p7_idle_s = 5;
  int p7_ready_runs = 20;
  double attach_mb = 50;  // P1 attach: the chat opened, and its calls
  int attach_calls = 5000;
  int p9_calls = 200;                      // an agent's calls, each way
  uint64_t p9_stream_bytes = 64ull << 20;  // each streaming agent's `cat`
  double p9_stream_min_s = 1;              // each round's streaming, `cat` after `cat`
  double p9_idle_s = 1;
  int p8_calls = 200;     // echo calls one after the other, each way
  int p8_queued = 1000;   // echo calls queued at once, each way
  int p8_cache_runs = 5;  // fresh hosts over the warm tool cache
  int p11_lines = 100000;  // P11: the gcc log's lines, over so many files
  int p11_files = 200;
};

// Tiny sizes, for CI's smoke run.
Sizes smoke_sizes();

class Bench {
 public:
  Bench(const Options& options, Sizes sizes);
  ~Bench();
  json run();

 private:
  json scenario(const std::string& function, json args, int deadline_s = 600);
  json run_scenario(const std::string& function, json args, int deadline_s);
  void p7_idle_host();
  void p7_ready_from_c();
  void p1_responsiveness();
  void print_trace(const std::string& label, uint64_t from, uint64_t to, const json& report);
  void p1_attach_stall();
  void p2_exit_feedback();
  void p3_exec();
  void spawn_latencies(const std::string& name, int n, std::vector<double>& out);
  void p10_sandboxed_exec();
  void p5_drain();
  void p6_many();
  void p9_agents();
  void p8_mcp();
  void p11_quickfix();
  json rss_window(uint64_t from, uint64_t to, uint64_t before_nvim_kb);

  const Options& o_;
  Sizes s_;
  std::string dir_;
  std::string child_;
  std::unique_ptr<NvimHarness> nvim_;
  std::unique_ptr<Probe> probe_;
  pid_t nvim_pid_ = 0;
  pid_t host_pid_ = 0;
  json f_ = json::object();  // the figures
};

}  // namespace toolhost::bench
