// toolhost_bench_e2e: the end-to-end benchmarks (issue #18). It drives a real
// `nvim --embed --headless` through the project's RPC client (tests/e2e/nvim_harness), with the
// plugin from this checkout configured by require("toolhost").setup{ binary = the Release
// build, auto_run = false }, and runs every workload three ways in the same run: through
// toolhost, through the Lua job runner of bench/baseline/runner.lua inside the same Neovim,
// and where it applies as a bare posix_spawn from C (the physical baseline). Every figure is
// reported with its baselines and ratio; nothing is asserted (CI runs it with --smoke).
//
//   P1 an independent client (its own thread and socket connection) sends nvim_eval("1")
//      every 5 ms while 8 jobs stream 2 GB: idle vs toolhost vs the runner; Neovim's RSS.
//   P2 job exit -> feedback applied in Neovim, 100 jobs in flight.
//   P3 :ToolRun -> child exec, from Neovim, vs bare posix_spawn.
//   P5 1 GB drained from one job vs the producer piped to /dev/null; host and Neovim RSS.
//   P6 1,000 calls queued at once; overhead per job over bare posix_spawn.
//   P7 the idle host: RSS, wake-ups over 5 s, ready after spawn.
//   P8 the independent client's nvim_eval round trips while a 50 MB chat is attached and read.
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/nvim_harness.h"
#include "rpc/convert.h"
#include "rpc/peer.h"

extern char** environ;

namespace {

using nlohmann::json;
using toolhost::e2e::NvimHarness;
namespace fs = std::filesystem;

struct Options {
  bool smoke = false;
  std::string binary;              // the toolhost binary (Release)
  std::string child;               // toolhost_bench_child
  std::string source;              // the checkout (plugin, bench/)
  std::string out;                 // writes OUT.md and OUT.json
  std::vector<std::string> micro;  // Google Benchmark JSON files to include
};

// Sizes: the issue's, or tiny ones for CI's smoke run.
struct Sizes {
  int p1_jobs = 8;
  uint64_t p1_bytes = 256ull << 20;  // each: 2 GiB in all
  double p1_idle_s = 3;
  int p2_jobs = 100;
  int p2_base_ms = 1000, p2_spread_ms = 1000;
  int p3_runs = 100;
  uint64_t p5_bytes = 1ull << 30;
  int p6_jobs = 1000;
  double p7_idle_s = 5;
  int p7_ready_runs = 20;
  double p8_mb = 50;
  int p8_calls = 500;
};

Sizes smoke_sizes() {
  Sizes s;
  s.p1_jobs = 2;
  s.p1_bytes = 4ull << 20;
  s.p1_idle_s = 0.3;
  s.p2_jobs = 10;
  s.p2_base_ms = 100;
  s.p2_spread_ms = 100;
  s.p3_runs = 5;
  s.p5_bytes = 16ull << 20;
  s.p6_jobs = 20;
  s.p7_idle_s = 0.5;
  s.p7_ready_runs = 3;
  s.p8_mb = 2;
  s.p8_calls = 20;
  return s;
}

uint64_t now_ns() {
  return uv_hrtime();
}

double realtime_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// /proc/PID/status fields, in kB or counts; 0 when absent.
uint64_t status_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line[key.size()] == ':') {
      return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10);
    }
  }
  return 0;
}

// utime + stime of a process (its threads included), in ms.
double cpu_ms(pid_t pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

uint64_t rss_kb(pid_t pid) {
  return pid > 0 ? status_field("/proc/" + std::to_string(pid) + "/status", "VmRSS") : 0;
}

// Context switches of every thread of the process.
uint64_t context_switches(pid_t pid) {
  uint64_t total = 0;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : fs::directory_iterator(dir)) {
    std::string status = task.path().string() + "/status";
    total += status_field(status, "voluntary_ctxt_switches") +
             status_field(status, "nonvoluntary_ctxt_switches");
  }
  return total;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

json stats(const std::vector<double>& values) {
  return {{"n", values.size()},
          {"p50", percentile(values, 50)},
          {"p99", percentile(values, 99)},
          {"max", values.empty() ? NAN : *std::max_element(values.begin(), values.end())}};
}

// --- bare posix_spawn: the physical baselines ----------------------------------------------

pid_t spawn(const std::vector<std::string>& args, int stdout_fd = -1) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int wait_for_pid(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

double read_stamp_us(const std::string& path) {
  std::ifstream in(path);
  double ns = 0;
  in >> ns;
  return ns / 1e3;
}

// --- the independent client ----------------------------------------------------------------

// Its own thread, loop and socket connection to Neovim: sends nvim_eval("1") every 5 ms while
// probing (never waiting for the previous answer, so a stall shows in every request it
// delays), and samples Neovim's and the host's RSS every 20 ms throughout.
class Probe {
 public:
  struct Rtt {
    uint64_t sent;
    double ms;
  };
  struct Rss {
    uint64_t at;
    uint64_t nvim_kb, host_kb;
  };

  Probe(const std::string& socket, pid_t nvim) : socket_(socket), nvim_(nvim) {}
  ~Probe() { stop(); }

  void start() {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    if (!thread_.joinable()) return;
    while (!ready_) std::this_thread::yield();
    uv_async_send(&stop_);
    thread_.join();
  }
  void probing(bool on) { probing_ = on; }
  void host(pid_t pid) { host_ = pid; }

  std::vector<Rtt> rtts(uint64_t from, uint64_t to) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Rtt> out;
    for (const Rtt& r : rtts_) {
      if (r.sent >= from && r.sent <= to) out.push_back(r);
    }
    return out;
  }
  std::vector<Rss> rss(uint64_t from, uint64_t to) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Rss> out;
    for (const Rss& r : rss_) {
      if (r.at >= from && r.at <= to) out.push_back(r);
    }
    return out;
  }
  size_t unanswered() const { return unanswered_; }

 private:
  void run() {
    uv_loop_init(&loop_);
    uv_async_init(&loop_, &stop_, [](uv_async_t* async) {
      auto* self = static_cast<Probe*>(async->data);
      for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&self->eval_timer_),
                             reinterpret_cast<uv_handle_t*>(&self->rss_timer_),
                             reinterpret_cast<uv_handle_t*>(&self->stop_)}) {
        uv_close(h, nullptr);
      }
      if (self->peer_) self->peer_->close();
    });
    stop_.data = this;
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      peer_ = std::make_unique<toolhost::rpc::Peer>(&loop_);
      peer_->open(fd, ::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    } else {
      std::cerr << "probe: cannot connect to " << socket_ << ": " << std::strerror(errno) << "\n";
    }
    uv_timer_init(&loop_, &eval_timer_);
    eval_timer_.data = this;
    uv_timer_start(
        &eval_timer_,
        [](uv_timer_t* t) {
          auto* self = static_cast<Probe*>(t->data);
          if (!self->probing_ || !self->peer_ || !self->peer_->is_open()) return;
          uint64_t sent = now_ns();
          ++self->unanswered_;
          self->peer_->request("nvim_eval", json::array({"1"}),
                               [self, sent](const toolhost::rpc::Response& response) {
                                 --self->unanswered_;
                                 if (!response.ok()) return;
                                 double ms = static_cast<double>(now_ns() - sent) / 1e6;
                                 std::lock_guard<std::mutex> lock(self->mutex_);
                                 self->rtts_.push_back({sent, ms});
                               });
        },
        5, 5);
    uv_timer_init(&loop_, &rss_timer_);
    rss_timer_.data = this;
    uv_timer_start(
        &rss_timer_,
        [](uv_timer_t* t) {
          auto* self = static_cast<Probe*>(t->data);
          Rss sample{now_ns(), rss_kb(self->nvim_), rss_kb(self->host_)};
          std::lock_guard<std::mutex> lock(self->mutex_);
          self->rss_.push_back(sample);
        },
        0, 20);
    ready_ = true;
    uv_run(&loop_, UV_RUN_DEFAULT);
    peer_.reset();
    uv_loop_close(&loop_);
  }

  std::string socket_;
  pid_t nvim_;
  std::atomic<pid_t> host_{0};
  std::atomic<bool> probing_{false};
  std::atomic<bool> ready_{false};
  std::atomic<size_t> unanswered_{0};
  std::thread thread_;
  uv_loop_t loop_{};
  uv_async_t stop_{};
  uv_timer_t eval_timer_{}, rss_timer_{};
  std::unique_ptr<toolhost::rpc::Peer> peer_;
  std::mutex mutex_;
  std::vector<Rtt> rtts_;
  std::vector<Rss> rss_;
};

// --- the benchmark --------------------------------------------------------------------------

class Bench {
 public:
  Bench(const Options& options, Sizes sizes) : o_(options), s_(sizes) {
    // tmpfs when there is one: the stamps and the child's pages never wait on a disk.
    std::string pattern = std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                          "/toolhost-bench-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    // Every workload execs the child from the temporary directory, so that every path
    // measured pays the same for it, and the least.
    child_ = dir_ + "/toolhost_bench_child";
    fs::copy_file(options.child, child_);
    fs::permissions(child_, fs::perms::owner_all);
  }
  ~Bench() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  json run();

 private:
  json scenario(const std::string& function, json args, int deadline_s = 600);
  json run_scenario(const std::string& function, json args, int deadline_s);
  void p7_idle_host();
  void p7_ready_from_c();
  void p1_responsiveness();
  void p2_exit_feedback();
  void p3_exec();
  void p5_drain();
  void p6_many();
  void p8_attach_stall();
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

void Bench::p1_responsiveness() {
  // Each window's round trips are pooled with the same window's of the other rounds: one
  // flood of 2 GB lasts ~1 s, 200 probes, whose p99 is their second-worst answer; and in
  // rounds, a busy spell of the machine does not fall on one way alone (as in P3). The Lua
  // runner, which takes Neovim tens of seconds per flood, runs once.
  std::map<std::string, std::vector<double>> samples;
  auto window = [&](const std::string& label, const std::function<json()>& body) {
    uint64_t before = rss_kb(nvim_pid_);
    double nvim_cpu = cpu_ms(nvim_pid_), host_cpu = cpu_ms(host_pid_);
    probe_->probing(true);
    uint64_t from = now_ns();
    json report = body();
    uint64_t to = now_ns();
    probe_->probing(false);
    nvim_cpu = cpu_ms(nvim_pid_) - nvim_cpu;
    host_cpu = cpu_ms(host_pid_) - host_cpu;
    std::vector<double>& ms = samples[label];
    for (const auto& r : probe_->rtts(from, to)) ms.push_back(r.ms);
    json& out = f_["p1"][label];
    const json previous = out.is_null() ? json::object() : out;
    out = {{"seconds", previous.value("seconds", 0.0) + static_cast<double>(to - from) / 1e9},
           {"rtt_ms", stats(ms)},
           {"rounds", previous.value("rounds", 0) + 1},
           {"nvim_cpu_ms", previous.value("nvim_cpu_ms", 0.0) + nvim_cpu},
           {"host_cpu_ms", previous.value("host_cpu_ms", 0.0) + host_cpu}};
    json rss = rss_window(from, to, before);
    if (previous.contains("nvim_growth_mb") &&
        previous["nvim_growth_mb"].get<double>() > rss["nvim_growth_mb"].get<double>()) {
      for (const char* key : {"nvim_before_mb", "nvim_growth_mb", "nvim_min_mb", "nvim_max_mb"}) {
        rss[key] = previous[key];
      }
    }
    if (previous.contains("host_max_mb")) {
      rss["host_max_mb"] =
          std::max(rss["host_max_mb"].get<double>(), previous["host_max_mb"].get<double>());
    }
    out.update(rss);
    if (!report.is_null()) out["report"] = report;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  };
  auto flood = [&](const char* via, int round) {
    window(via, [&] {
      return scenario("flood", {{"name", "p1_" + std::string(via) + "_" + std::to_string(round)},
                                {"via", via},
                                {"jobs", s_.p1_jobs},
                                {"bytes", s_.p1_bytes}});
    });
  };
  const int rounds = o_.smoke ? 1 : 3;
  for (int round = 0; round < rounds; ++round) {
    window("idle", [&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(s_.p1_idle_s / rounds));
      return json();
    });
    // The same producers piped into cat, with neither toolhost nor Neovim involved: what the
    // machine's load alone does to Neovim's answers (2 cores, 8 writers and their readers).
    window("load", [&] {
      std::vector<pid_t> pids;
      uint64_t t0 = now_ns();
      for (int i = 0; i < s_.p1_jobs; ++i) {
        pids.push_back(
            spawn({"/bin/sh", "-c",
                   child_ + " flood " + std::to_string(s_.p1_bytes) + " | cat > /dev/null"}));
      }
      for (pid_t pid : pids) wait_for_pid(pid);
      return json{{"seconds", static_cast<double>(now_ns() - t0) / 1e9}};
    });
    flood("toolhost", round);
  }
  flood("lua", 0);
  f_["p1"]["jobs"] = s_.p1_jobs;
  f_["p1"]["total_bytes"] = s_.p1_bytes * static_cast<uint64_t>(s_.p1_jobs);
}

void Bench::p2_exit_feedback() {
  for (const char* via : {"toolhost", "lua"}) {
    json report = scenario("exit_feedback", {{"name", std::string("p2_") + via},
                                             {"via", via},
                                             {"n", s_.p2_jobs},
                                             {"base_ms", s_.p2_base_ms},
                                             {"spread_ms", s_.p2_spread_ms}});
    f_["p2"][via] = stats(report["latencies_ms"].get<std::vector<double>>());
  }
  f_["p2"]["jobs"] = s_.p2_jobs;
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
    // The same argv the others run (the shell toolhost is configured with), from C.
    for (int i = 0; i < s_.p3_runs / rounds; ++i) {
      std::string stamp = dir_ + "/p3c-" + std::to_string(i);
      double t0 = realtime_us();
      pid_t pid = spawn({"/bin/sh", "-c", "exec " + child_ + " now " + stamp});
      wait_for_pid(pid);
      ms["posix_spawn"].push_back((read_stamp_us(stamp) - t0) / 1e3);
      ::unlink(stamp.c_str());
    }
  }
  for (const auto& [via, values] : ms) f_["p3"][via] = stats(values);
}

void Bench::p5_drain() {
  const uint64_t bytes = s_.p5_bytes;
  for (const char* via : {"toolhost", "lua"}) {
    uint64_t before = rss_kb(nvim_pid_);
    double nvim_cpu = cpu_ms(nvim_pid_), host_cpu = cpu_ms(host_pid_);
    uint64_t from = now_ns();
    json report = scenario(
        "flood", {{"name", std::string("p5_") + via}, {"via", via}, {"jobs", 1}, {"bytes", bytes}});
    uint64_t to = now_ns();
    json out = {{"seconds", report["seconds"]},
                {"mb_s", static_cast<double>(bytes) / 1e6 / report["seconds"].get<double>()},
                {"nvim_cpu_ms", cpu_ms(nvim_pid_) - nvim_cpu},
                {"host_cpu_ms", cpu_ms(host_pid_) - host_cpu},
                {"report", report}};
    out.update(rss_window(from, to, before));
    f_["p5"][via] = out;
  }
  auto shell_rate = [&](const std::string& script) {
    uint64_t t0 = now_ns();
    wait_for_pid(spawn({"/bin/sh", "-c", script}));
    return static_cast<double>(bytes) / 1e3 / (static_cast<double>(now_ns() - t0) / 1e6);
  };
  std::string piped = child_ + " flood " + std::to_string(bytes) + " | cat > /dev/null";
  f_["p5"]["pipe_to_devnull"] = {{"mb_s", shell_rate(piped)}};
  f_["p5"]["bytes"] = bytes;
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

void Bench::p8_attach_stall() {
  json opened =
      scenario("big_chat", {{"name", "p8_open"}, {"mb", s_.p8_mb}, {"calls", s_.p8_calls}});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  probe_->probing(true);
  uint64_t from = now_ns();
  json report = scenario("attach_big", {{"name", "p8_attach"}, {"via", "toolhost"}});
  uint64_t to = now_ns();
  probe_->probing(false);
  scenario("drop_big", {{"name", "p8_drop"}});
  std::vector<double> ms;
  for (const auto& r : probe_->rtts(from, to)) ms.push_back(r.ms);
  f_["p8"] = {{"mb", s_.p8_mb},
              {"rows", opened["rows"]},
              {"rtt_ms", stats(ms)},
              {"read_ms", report["read_ms"]},
              {"calls", s_.p8_calls}};
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
  if (wanted("p2", "P2 exit -> feedback")) p2_exit_feedback();
  if (wanted("p6", "P6 many calls")) p6_many();
  if (wanted("p5", "P5 drain")) p5_drain();
  if (wanted("p1", "P1 responsiveness")) p1_responsiveness();
  if (wanted("p8", "P8 attaching a big chat")) p8_attach_stall();
  probe_->stop();
  nvim_.reset();
  return f_;
}

// --- the report -----------------------------------------------------------------------------

std::string fmt(double v, int digits = 2) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string signed_mb(double v) {
  return (v >= 0 ? "+" : "") + fmt(v, 1);
}

struct Row {
  std::string figure, toolhost, lua, physical, ratio, target, met;
};

double num(const json& j, const json::json_pointer& p) {
  return j.contains(p) && j.at(p).is_number() ? j.at(p).get<double>() : NAN;
}

std::vector<Row> rows(const json& f) {
  using P = json::json_pointer;
  auto n = [&](const char* p) { return num(f, P(p)); };
  auto yes = [](bool ok) { return std::string(ok ? "yes" : "**no**"); };
  std::vector<Row> r;
  // P1
  double idle99 = n("/p1/idle/rtt_ms/p99"), th99 = n("/p1/toolhost/rtt_ms/p99"),
         lua99 = n("/p1/lua/rtt_ms/p99");
  auto triple = [&](const char* via) {
    std::string base = std::string("/p1/") + via + "/rtt_ms/";
    return fmt(n((base + "p50").c_str())) + " / " + fmt(n((base + "p99").c_str())) + " / " +
           fmt(n((base + "max").c_str()));
  };
  r.push_back({"P1 nvim_eval round trip while " + fmt(n("/p1/jobs"), 0) + " jobs stream " +
                   fmt(n("/p1/total_bytes") / (1 << 20), 0) + " MiB, p50 / p99 / max (ms), " +
                   fmt(n("/p1/toolhost/rounds"), 0) + " rounds pooled; idle: " + triple("idle"),
               triple("toolhost"), triple("lua"),
               triple("load") + " (the producers \\| cat, no Neovim job)",
               "p99 " + fmt(th99 / idle99) + "× idle; Lua/toolhost " + fmt(lua99 / th99, 1) + "×",
               "≤ 2× idle; ≥ 20× better than Lua",
               yes(th99 <= 2 * idle99) + " / " + yes(lua99 >= 20 * th99)});
  r.push_back({"P1 Neovim RSS growth while streaming (MB)",
               fmt(n("/p1/toolhost/nvim_growth_mb"), 1), fmt(n("/p1/lua/nvim_growth_mb"), 1), "",
               "", "", ""});
  // P2
  double p2_50 = n("/p2/toolhost/p50"), p2_99 = n("/p2/toolhost/p99");
  r.push_back({"P2 job exit → feedback in Neovim, p50 / p99 (ms)", fmt(p2_50) + " / " + fmt(p2_99),
               fmt(n("/p2/lua/p50")) + " / " + fmt(n("/p2/lua/p99")), "",
               "p50 " + fmt(p2_50 / n("/p2/lua/p50"), 1) + "× Lua's",
               "p50 ≤ 2× Lua's and ≤ 1, p99 ≤ 5",
               yes(p2_50 <= 2 * n("/p2/lua/p50") && p2_50 <= 1 && p2_99 <= 5)});
  // P3
  double p3 = n("/p3/toolhost/p50"), p3_spawn = n("/p3/posix_spawn/p50");
  r.push_back({"P3 :ToolRun → child exec, p50 (ms)", fmt(p3, 3), fmt(n("/p3/lua/p50"), 3),
               fmt(p3_spawn, 3) + " (posix_spawn)", fmt(p3 / p3_spawn) + "×", "≤ 2×",
               yes(p3 <= 2 * p3_spawn)});
  // P5
  double p5 = n("/p5/toolhost/mb_s"), p5_pipe = n("/p5/pipe_to_devnull/mb_s");
  r.push_back({"P5 drain through :ToolRun (MB/s)", fmt(p5, 0), fmt(n("/p5/lua/mb_s"), 0),
               fmt(p5_pipe, 0) + " (producer \\| cat > /dev/null)", fmt(p5 / p5_pipe) + "×",
               "≥ 0.5×", yes(p5 >= 0.5 * p5_pipe)});
  double host_rss = n("/p5/toolhost/host_max_mb");
  r.push_back({"P5 host RSS during the drain, max (MB)", fmt(host_rss, 1), "", "", "", "≤ 30",
               yes(host_rss <= 30)});
  double nv_lo = n("/p5/toolhost/nvim_min_mb") - n("/p5/toolhost/nvim_before_mb"),
         nv_hi = n("/p5/toolhost/nvim_max_mb") - n("/p5/toolhost/nvim_before_mb");
  r.push_back({"P5 Neovim RSS change during the drain (MB)",
               signed_mb(nv_lo) + " … " + signed_mb(nv_hi),
               "+" + fmt(n("/p5/lua/nvim_growth_mb"), 0), "", "", "± 5",
               yes(std::fabs(nv_lo) <= 5 && std::fabs(nv_hi) <= 5)});
  // P6
  double p6 = n("/p6/toolhost/ms_per_job"), p6_spawn = n("/p6/posix_spawn/ms_per_job");
  double written = n("/p6/toolhost/written"), jobs = n("/p6/jobs");
  r.push_back({"P6 " + fmt(jobs, 0) + " calls queued at once, per job (ms)", fmt(p6, 3),
               fmt(n("/p6/lua/ms_per_job"), 3), fmt(p6_spawn, 3) + " (posix_spawn)",
               "+" + fmt(p6 - p6_spawn, 3) + " ms/job", "≤ +1 ms; all written",
               yes(p6 - p6_spawn <= 1 && written == jobs) + " (" + fmt(written, 0) + " written)"});
  // P7
  double rss = n("/p7/idle_rss_mb"), cs = n("/p7/idle_context_switches"),
         ready = n("/p7/ready_from_spawn_ms/p50");
  r.push_back({"P7 idle host RSS (MB)",
               fmt(rss, 2) + " (anon " + fmt(n("/p7/idle_rss_anon_mb"), 2) + ", files " +
                   fmt(n("/p7/idle_rss_file_mb"), 2) + "; PSS " + fmt(n("/p7/idle_pss_mb"), 2) +
                   ")",
               "", "", "", "≤ 4", yes(rss <= 4)});
  r.push_back({"P7 idle host context switches in " + fmt(n("/p7/idle_seconds"), 1) + " s",
               fmt(cs, 0), "", "", "", "0", yes(cs == 0)});
  r.push_back({"P7 ready after spawn, p50 (ms)",
               fmt(ready) + " (from C); " + fmt(n("/p7/ready_from_nvim_ms")) + " (from Neovim)", "",
               "", "", "≤ 10", yes(ready <= 10)});
  // P8
  double p8_max = n("/p8/rtt_ms/max");
  r.push_back({"P8 nvim_eval round trip while a " + fmt(n("/p8/mb"), 0) + " MB chat (" +
                   fmt(n("/p8/rows"), 0) + " rows) is attached and read in " +
                   fmt(n("/p8/read_ms"), 0) + " ms, p50 / max (ms)",
               fmt(n("/p8/rtt_ms/p50")) + " / " + fmt(p8_max), "", "", "", "max ≤ 16",
               yes(p8_max <= 16)});
  return r;
}

std::string table(const json& f) {
  std::ostringstream out;
  out << "| Figure | toolhost | Lua runner | physical baseline | ratio | target | met |\n";
  out << "|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows(f)) {
    out << "| " << r.figure << " | " << r.toolhost << " | " << r.lua << " | " << r.physical << " | "
        << r.ratio << " | " << r.target << " | " << r.met << " |\n";
  }
  return out.str();
}

std::string micro_table(const json& micro) {
  if (micro.empty()) return "";
  std::ostringstream out;
  out << "\nMicro benchmarks (Google Benchmark, engine only):\n\n";
  out << "| Benchmark | time | counters |\n|---|---|---|\n";
  for (const auto& [name, b] : micro.items()) {
    out << "| " << name << " | " << fmt(b.value("real_time", NAN)) << " "
        << b.value("time_unit", "") << " | ";
    bool first = true;
    const json counters = b.value("counters", json::object());
    for (const auto& [key, value] : counters.items()) {
      out << (first ? "" : ", ") << key << " " << fmt(value.get<double>());
      first = false;
    }
    out << " |\n";
  }
  return out.str();
}

json machine() {
  json m;
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0) {
      m["cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  }
  m["cores"] = std::thread::hardware_concurrency();
  m["memory_gb"] = status_field("/proc/meminfo", "MemTotal") / 1024.0 / 1024.0;
  std::ifstream loadavg("/proc/loadavg");
  double one = 0, five = 0;
  loadavg >> one >> five;
  m["loadavg_1m"] = one;  // other work on the machine while the benchmarks ran
  m["loadavg_5m"] = five;
  utsname u{};
  ::uname(&u);
  m["kernel"] = std::string(u.sysname) + " " + u.release;
  return m;
}

json read_micro(const std::vector<std::string>& files) {
  json micro = json::object();
  for (const auto& file : files) {
    std::ifstream in(file);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) continue;
    const json benchmarks = j.value("benchmarks", json::array());
    for (const auto& b : benchmarks) {
      json entry = {{"real_time", b.value("real_time", 0.0)},
                    {"time_unit", b.value("time_unit", "")},
                    {"counters", json::object()}};
      for (const auto& [key, value] : b.items()) {
        static const std::vector<std::string> known = {"name",
                                                       "family_index",
                                                       "per_family_instance_index",
                                                       "run_name",
                                                       "run_type",
                                                       "repetitions",
                                                       "repetition_index",
                                                       "threads",
                                                       "iterations",
                                                       "real_time",
                                                       "cpu_time",
                                                       "time_unit",
                                                       "bytes_per_second",
                                                       "items_per_second",
                                                       "label",
                                                       "error_occurred",
                                                       "error_message"};
        if (value.is_number() && std::find(known.begin(), known.end(), key) == known.end()) {
          entry["counters"][key] = value;
        }
      }
      std::string name = b.value("name", "?");
      micro[name.substr(0, name.find('/'))] = entry;
    }
  }
  return micro;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
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

  json figures;
  try {
    Bench bench(o, o.smoke ? smoke_sizes() : Sizes{});
    figures = bench.run();
  } catch (const std::exception& e) {
    std::cerr << "bench: " << e.what() << "\n";
    return 1;
  }
  json result = {{"date", utc_now()},    {"smoke", o.smoke},
                 {"machine", machine()}, {"neovim", figures["neovim"]},
                 {"figures", figures},   {"micro", read_micro(o.micro)}};
  std::string md = "# toolhost benchmarks\n\n";
  md += std::string(o.smoke ? "**Smoke run (tiny sizes): not figures to read.**\n\n" : "");
  md += "Date " + result["date"].get<std::string>() + "; Neovim " +
        figures["neovim"].get<std::string>() + "; " + result["machine"].value("cpu", "?") + ", " +
        std::to_string(result["machine"]["cores"].get<int>()) + " cores, " +
        fmt(result["machine"]["memory_gb"].get<double>(), 0) + " GB, " +
        result["machine"]["kernel"].get<std::string>() + "; load average at the end " +
        fmt(result["machine"]["loadavg_1m"].get<double>()) + " (1 min), " +
        fmt(result["machine"]["loadavg_5m"].get<double>()) + " (5 min); toolhost's jobs at nice +" +
        std::to_string(figures.value("job_nice", 0)) +
        " (job_nice), the baselines' at the editor's.\n\n";
  md += table(figures);
  md +=
      "\nRatios are against baselines measured in the same run; `make bench` reproduces it, "
      "and bench/NOTES.md has the profiles behind the misses.\n";
  md += micro_table(result["micro"]);
  std::cout << "\n" << md;
  fs::create_directories(fs::path(o.out).parent_path());
  std::ofstream(o.out + ".md") << md;
  std::ofstream(o.out + ".json") << result.dump(2) << "\n";
  std::cerr << "bench: wrote " << o.out << ".md and " << o.out << ".json\n";
  return 0;
}
