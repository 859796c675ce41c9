// P8 (SPEC 13.6): server-everything's `echo` called from a chat buffer through toolhost
// (:ToolRun, the result written under the block) against the official TypeScript SDK's client
// calling its own server-everything in the same run (bench/mcp/sdk_echo.mjs): per-call latency,
// 1,000 calls queued at once, and a fresh host's tools from the warm cache. Its own Neovims
// (setup() names the server); skipped, saying so, without Node.js or tests/mcp/node_modules.
#include <signal.h>
#include <stdio.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "bench.h"
#include "measure.h"

namespace toolhost::bench {
namespace {

namespace fs = std::filesystem;

std::string node_modules(const std::string& source) {
  const char* modules = std::getenv("TOOLHOST_MCP_NODE_MODULES");
  return modules && *modules ? modules : source + "/tests/mcp/node_modules";
}

// Why P8 cannot run here, or "".
std::string missing(const std::string& modules) {
  if (std::system("command -v node >/dev/null 2>&1") != 0) return "Node.js is not on PATH";
  for (const char* package : {"@modelcontextprotocol/server-everything/dist/index.js",
                              "@modelcontextprotocol/sdk/dist/esm/client/index.js"}) {
    if (!fs::exists(modules + "/" + package)) {
      return modules + "/" + package + " is missing (scripts/install-test-node-deps)";
    }
  }
  return "";
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

json sdk_baseline(const std::string& source, const std::string& modules, int sequential,
                  int queued) {
  const std::string command = "node " + quoted(source + "/bench/mcp/sdk_echo.mjs") + " " +
                              quoted(modules) + " " + std::to_string(sequential) + " " +
                              std::to_string(queued) + " 2>/dev/null";
  FILE* out = ::popen(command.c_str(), "r");
  if (!out) throw std::runtime_error("P8: cannot start " + command);
  std::string text;
  char chunk[65536];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, out)) > 0;) text.append(chunk, n);
  if (::pclose(out) != 0) throw std::runtime_error("P8: the SDK client failed: " + command);
  json result = json::parse(text);
  if (result["ok"].get<int>() != sequential + queued) {
    throw std::runtime_error("P8: the SDK's echo calls did not all succeed: " + text);
  }
  return result;
}

// BENCH_PERF=DIR: `perf record -g` on the host over the queued calls, into DIR/NAME.perf (as
// bench.cc does for the other scenarios); the perf process, or -1 without.
pid_t profile(pid_t host, const std::string& name) {
  const char* dir = std::getenv("BENCH_PERF");
  if (!dir) return -1;
  const std::string out = std::string(dir) + "/" + name;
  // BENCH_PERF_STAT=1: the instructions the host runs instead (the same under any load).
  if (std::getenv("BENCH_PERF_STAT")) {
    pid_t perf = spawn({"/usr/bin/perf", "stat", "-e", "instructions,task-clock", "-p",
                        std::to_string(host), "-o", out + ".stat"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return perf;
  }
  const char* graph = std::getenv("BENCH_PERF_CALL_GRAPH");  // e.g. dwarf
  pid_t perf = spawn({"/usr/bin/perf", "record", "-q", "--call-graph", graph ? graph : "fp", "-p",
                      std::to_string(host), "-o", out + ".perf"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // perf attaches
  return perf;
}

}  // namespace

void Bench::p8_mcp() {
  const std::string modules = node_modules(o_.source);
  const std::string why = missing(modules);
  if (!why.empty()) {
    f_["p8"]["skipped"] = why;
    return;
  }
  const int sequential = s_.p8_calls, queued = s_.p8_queued;
  json sdk = sdk_baseline(o_.source, modules, sequential, queued);
  f_["p8"]["sdk"]["sequential_ms"] = stats(sdk["sequential_ms"].get<std::vector<double>>());
  f_["p8"]["sdk"]["queued_ms"] = sdk["queued_ms"];

  const json everything = {{"command", "node"},
                           {"args",
                            {modules + "/@modelcontextprotocol/server-everything/dist/"
                                       "index.js",
                             "stdio"}},
                           {"auto_approve", {"echo"}}};
  const json setup = {{"binary", o_.binary},
                      {"auto_run", false},
                      {"log_level", "warn"},
                      {"run_all", "parallel"},
                      {"confirm_run_all", false},
                      {"max_concurrent", queued},
                      {"timeout_ms", 0},
                      {"keymaps", false},
                      {"mcp", {{"servers", {{"everything", everything}}}}}};
  const std::string dir = dir_ + "/p8";
  fs::create_directories(dir);
  auto run = [&](NvimHarness& nvim, const std::string& function, const json& args) {
    nvim.lua("_G.toolhost_bench_mcp." + function + "(...)", json::array({args}));
    json report = nvim.wait_for("bench", std::chrono::seconds(o_.smoke ? 60 : 600));
    if (report.value("name", "") != args["name"]) {
      throw std::runtime_error("P8: expected " + args["name"].dump() + ", got " + report.dump());
    }
    return report;
  };
  auto load = [&](NvimHarness& nvim) {
    nvim.listen("bench");
    nvim.lua(R"(
      local source, args = ...
      _G.toolhost_bench_mcp = dofile(source .. "/bench/e2e/scenarios_mcp.lua")
      _G.toolhost_bench_mcp.init(args)
    )",
             json::array({o_.source, {{"chan", nvim.channel()}, {"dir", dir}}}));
  };
  NvimHarness warm(setup);
  load(warm);
  json seq = run(warm, "sequential", {{"name", "p8_sequential"}, {"n", sequential}});
  // The host's CPU over the queued calls (parsing the blocks, the calls, the results): what
  // it spends per call, whatever the machine's load does to the wall time.
  const pid_t host =
      warm.lua("return vim.fn.jobpid(require('toolhost.host').ensure())").get<pid_t>();
  const double host_cpu0 = cpu_ms(host);
  const pid_t perf = profile(host, "p8_queued");
  json all = run(warm, "queued", {{"name", "p8_queued"}, {"n", queued}});
  if (perf > 0) ::kill(perf, SIGINT), wait_for_pid(perf);
  f_["p8"]["toolhost"]["queued_host_cpu_ms"] = cpu_ms(host) - host_cpu0;
  if (seq["written"].get<int>() < sequential + 5 || all["written"].get<int>() != queued ||
      all["ok"].get<int>() != queued) {
    throw std::runtime_error("P8: not every echo succeeded and was written: " + seq.dump() + " " +
                             all.dump());
  }
  f_["p8"]["toolhost"]["sequential_ms"] = stats(seq["latencies_ms"].get<std::vector<double>>());
  f_["p8"]["toolhost"]["mcp_hop_ms"] = stats(seq["hops_ms"].get<std::vector<double>>());
  f_["p8"]["toolhost"]["queued_ms"] = all["ms"];
  f_["p8"]["queued"] = queued;
  f_["p8"]["calls"] = sequential;

  // The first Neovim's host listed the tools into the state dir: a second Neovim on the same
  // dirs starts its own host over that cache.
  std::vector<double> ready, tools;
  for (int i = 0; i < s_.p8_cache_runs; ++i) {
    NvimHarness fresh(setup, &warm);
    load(fresh);
    json cache = run(fresh, "cache", {{"name", "p8_cache"}});
    ready.push_back(cache["ready_ms"].get<double>());
    tools.push_back(cache["tools_ms"].get<double>());
  }
  f_["p8"]["cache"]["ready_ms"] = stats(ready);
  f_["p8"]["cache"]["tools_after_ready_ms"] = stats(tools);
}

}  // namespace toolhost::bench
