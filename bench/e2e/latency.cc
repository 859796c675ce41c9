// P2 (job exit -> feedback), P3 (:ToolRun -> exec), P6 (many calls at once) and P7 (the idle
// host, and its start from C).
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>
#include <map>
#include <thread>

#include "bench.h"
#include "measure.h"

extern char** environ;

namespace toolhost::bench {

void Bench::p7_idle_host() {
  json ready = scenario("host_ready", {{"name", "host_ready"}});
  host_pid_ = ready["pid"].get<pid_t>();
  probe_->host(host_pid_);
  // Settle: the host answered setup and the ping; nothing else is pending.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  uint64_t switches = context_switches(host_pid_);
  std::this_thread::sleep_for(std::chrono::duration<double>(s_.p7_idle_s));
  uint64_t after = context_switches(host_pid_);
  const std::string proc = "/proc/" + std::to_string(host_pid_);
  f_["p7"] = {{"ready_from_nvim_ms", ready["ready_ms"]},
              {"idle_rss_mb", rss_kb(host_pid_) / 1024.0},
              {"idle_rss_anon_mb", status_field(proc + "/status", "RssAnon") / 1024.0},
              {"idle_rss_file_mb", status_field(proc + "/status", "RssFile") / 1024.0},
              {"idle_pss_mb", status_field(proc + "/smaps_rollup", "Pss") / 1024.0},
              {"idle_seconds", s_.p7_idle_s},
              {"idle_context_switches", after - switches}};
}

// The host spawned from C with its stdio on pipes: from posix_spawn to the answer of
// toolhost.ping (no Neovim in between).
void Bench::p7_ready_from_c() {
  std::vector<double> ms;
  for (int run = 0; run < s_.p7_ready_runs; ++run) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    int to_host[2], from_host[2];
    if (::pipe2(to_host, O_CLOEXEC) || ::pipe2(from_host, O_CLOEXEC))
      throw std::runtime_error("pipe");
    std::vector<std::string> args = {o_.binary,     "--stdio",     "--state-dir", dir_ + "/p7s",
                                     "--cache-dir", dir_ + "/p7c", "--log-level", "warn"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_host[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_host[1], 1);
    uint64_t t0 = now_ns();
    pid_t pid = -1;
    posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_host[0]);
    ::close(from_host[1]);
    toolhost::rpc::Peer peer(&loop);
    peer.open(from_host[0], to_host[1]);
    bool answered = false;
    peer.request("toolhost.ping", json::array({json::object()}),
                 [&](const toolhost::rpc::Response&) {
                   ms.push_back(static_cast<double>(now_ns() - t0) / 1e6);
                   answered = true;
                 });
    while (!answered && peer.is_open()) uv_run(&loop, UV_RUN_ONCE);
    peer.close();
    while (!peer.is_closed()) uv_run(&loop, UV_RUN_ONCE);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (pid > 0) wait_for_pid(pid);
  }
  f_["p7"]["ready_from_spawn_ms"] = stats(ms);
}

void Bench::p2_exit_feedback() {
  for (const char* via : {"toolhost", "lua"}) {
    // Neovim's CPU per job: what the machine's load does not stretch (bench/NOTES-p2.md).
    double nvim_cpu = cpu_ms(nvim_pid_);
    json report = scenario("exit_feedback", {{"name", std::string("p2_") + via},
                                             {"via", via},
                                             {"n", s_.p2_jobs},
                                             {"base_ms", s_.p2_base_ms},
                                             {"spread_ms", s_.p2_spread_ms}});
    f_["p2"][via] = stats(report["latencies_ms"].get<std::vector<double>>());
    f_["p2"][via]["nvim_cpu_ms_per_job"] = (cpu_ms(nvim_pid_) - nvim_cpu) / s_.p2_jobs;
  }
  f_["p2"]["jobs"] = s_.p2_jobs;
}

// P3's and P10's baseline: the same argv the others run (the shell toolhost is configured
// with), from C with posix_spawn, `n` times; each spawn to the child's stamp, in ms.
void Bench::spawn_latencies(const std::string& name, int n, std::vector<double>& out) {
  for (int i = 0; i < n; ++i) {
    std::string stamp = dir_ + "/" + name + "-" + std::to_string(i);
    double t0 = realtime_us();
    pid_t pid = spawn({"/bin/sh", "-c", "exec " + child_ + " now " + stamp});
    wait_for_pid(pid);
    out.push_back((read_stamp_us(stamp) - t0) / 1e3);
    ::unlink(stamp.c_str());
  }
}

void Bench::p3_exec() {
  // In rounds, each way in turn, so that a busy spell of the machine does not fall on one.
  const int rounds = o_.smoke ? 1 : 5;
  std::map<std::string, std::vector<double>> ms;
  for (int round = 0; round < rounds; ++round) {
    for (const char* via : {"toolhost", "lua"}) {
      json report = scenario("exec_latency",
                             {{"name", "p3_" + std::string(via) + "_" + std::to_string(round)},
                              {"via", via},
                              {"n", s_.p3_runs / rounds}});
      for (double v : report["latencies_ms"]) ms[via].push_back(v);
    }
    spawn_latencies("p3c", s_.p3_runs / rounds, ms["posix_spawn"]);
  }
  for (const auto& [via, values] : ms) f_["p3"][via] = stats(values);
}

// P10 (issue #38): the same as P3, the job in the kernel sandbox, against the same posix_spawn
// and the same :ToolRun outside the sandbox, in alternating rounds.
void Bench::p10_sandboxed_exec() {
  const int rounds = o_.smoke ? 1 : 5;
  std::map<std::string, std::vector<double>> ms;
  for (int round = 0; round < rounds; ++round) {
    for (bool sandboxed : {true, false}) {
      const std::string via = sandboxed ? "sandboxed" : "toolhost";
      json report = scenario("exec_latency",
                             {{"name", "p10_" + via + "_" + std::to_string(round)},
                              {"via", "toolhost"},
                              {"sandboxed", sandboxed},
                              {"n", s_.p10_runs / rounds}});
      for (double v : report["latencies_ms"]) ms[via].push_back(v);
    }
    spawn_latencies("p10c", s_.p10_runs / rounds, ms["posix_spawn"]);
  }
  for (const auto& [via, values] : ms) f_["p10"][via] = stats(values);
}

void Bench::p6_many() {
  for (const char* via : {"toolhost", "lua"}) {
    double nvim_cpu = cpu_ms(nvim_pid_), host_cpu = cpu_ms(host_pid_);
    json report =
        scenario("many", {{"name", std::string("p6_") + via}, {"via", via}, {"n", s_.p6_jobs}});
    f_["p6"][via] = {{"seconds", report["seconds"]},
                     {"ms_per_job", report["seconds"].get<double>() * 1e3 / s_.p6_jobs},
                     {"ok", report["ok"]},
                     {"written", report["written"]},
                     // Neovim's from the first call to the last result (os.clock()).
                     {"nvim_cpu_ms", report.value("nvim_cpu_s", 0.0) * 1e3},
                     {"host_cpu_ms", cpu_ms(host_pid_) - host_cpu}};
    (void)nvim_cpu;
  }
  uint64_t t0 = now_ns();
  std::vector<pid_t> pids;
  for (int i = 0; i < s_.p6_jobs; ++i) pids.push_back(spawn({"/bin/sh", "-c", "true"}));
  for (pid_t pid : pids) wait_for_pid(pid);
  double seconds = static_cast<double>(now_ns() - t0) / 1e9;
  f_["p6"]["posix_spawn"] = {{"seconds", seconds}, {"ms_per_job", seconds * 1e3 / s_.p6_jobs}};
  f_["p6"]["jobs"] = s_.p6_jobs;
}

}  // namespace toolhost::bench
