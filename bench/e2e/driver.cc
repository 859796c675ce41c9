// toolhost_bench_e2e: the end-to-end benchmarks (issue #18). It drives a real
// `nvim --embed --headless` through the project's RPC client (tests/e2e/nvim_harness), with the
// plugin from this checkout configured by require("toolhost").setup{ binary = the Release
// build, auto_run = false }, and runs every workload three ways in the same run: through
// toolhost, through the Lua job runner of bench/baseline/runner.lua inside the same Neovim,
// and where it applies as a bare posix_spawn from C (the physical baseline). Every figure is
// reported with its baselines and ratio; nothing is asserted (CI runs it with --smoke).
//
//   P1 an independent client (its own thread and socket connection) sends nvim_eval("1")
//      every 5 ms while 8 jobs stream 2 GB: the machine's floor (the same producers piped
//      into cat) vs toolhost vs the runner, p50 / p99 / max; Neovim's slices; Neovim's RSS.
//   P2 job exit -> feedback applied in Neovim, 100 jobs in flight.
//   P3 :ToolRun -> child exec, from Neovim, vs bare posix_spawn.
//   P5 1 GB drained from one job vs the producer piped to /dev/null; host and Neovim RSS.
//   P6 1,000 calls queued at once; overhead per job over bare posix_spawn.
//   P7 the idle host: RSS, wake-ups over 5 s, ready after spawn.
//   P1 attach: the same client's round trips while a 50 MB chat is attached and read.
//   P8 server-everything's echo from a chat: the host's own MCP hop vs the TypeScript SDK's
//      whole call, and :ToolRun -> result written vs 1 ms (mcp.cc).
//   P9 an agent's call through `toolhost mcp serve`, relayed vs headless; Neovim's RPC while
//      agents stream, vs the floor (the same cats piped into cat) and a frame (agents.cc).
//   P11 a job printing a 100,000-line gcc log over 200 files through :ToolRun, its items in
//      the call's quickfix list and diagnostics: the same client's round trips vs the floor
//      (the log piped into cat) and a frame; the job's exit -> the list complete (quickfix.cc).
//
// This file reads the command line; bench.cc runs Neovim and the scenarios (flood.cc: P1, P5;
// latency.cc: P2, P3, P6, P7) with probe.cc's client and measure.cc's clocks; report.cc
// writes the table.
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "bench.h"
#include "report.h"

namespace fs = std::filesystem;
using toolhost::bench::Bench;
using toolhost::bench::Options;
using toolhost::bench::Sizes;

int main(int argc, char** argv) {
  Options o;
  o.p1_trace = std::getenv("BENCH_P1_TRACE") != nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--smoke")
      o.smoke = true;
    else if (a == "--binary")
      o.binary = value();
    else if (a == "--child")
      o.child = value();
    else if (a == "--source")
      o.source = value();
    else if (a == "--out")
      o.out = value();
    else if (a == "--micro")
      o.micro.push_back(value());
    else {
      std::cerr << "usage: " << argv[0]
                << " --binary TOOLHOST --child BENCH_CHILD --source CHECKOUT --out PREFIX"
                   " [--micro GBENCH.json]... [--smoke]\n";
      return 2;
    }
  }
  if (o.binary.empty() || o.child.empty() || o.source.empty() || o.out.empty()) {
    std::cerr << argv[0] << ": --binary, --child, --source and --out are required\n";
    return 2;
  }
  o.binary = fs::absolute(o.binary).string();
  o.child = fs::absolute(o.child).string();
  o.source = fs::absolute(o.source).string();

  nlohmann::json figures;
  try {
    Bench bench(o, o.smoke ? toolhost::bench::smoke_sizes() : Sizes{});
    figures = bench.run();
  } catch (const std::exception& e) {
    std::cerr << "bench: " << e.what() << "\n";
    return 1;
  }
  toolhost::bench::write_report(figures, o.micro, o.smoke, o.out);
  std::cerr << "bench: wrote " << o.out << ".md and " << o.out << ".json\n";
  return 0;
}
