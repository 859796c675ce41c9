// P1 (an independent client's round trips while floods stream, and while a big chat is
// attached and read) and P5 (one flood drained).
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "bench.h"
#include "measure.h"

namespace toolhost::bench {

// BENCH_P1_TRACE: a window's answers slower than 1 ms and Neovim's slices over 0.7 ms (wall,
// CPU, the costliest step), on Neovim's clock from the window's start, to find what delays them.
void Bench::print_trace(const std::string& label, uint64_t from, uint64_t to, const json& report) {
  std::fprintf(stderr, "== P1 %s window, %.1f ms\n", label.c_str(), (to - from) / 1e6);
  for (const auto& r : probe_->rtts(from, to)) {
    if (r.ms >= 1.0) {
      std::fprintf(stderr, "  answer to %8.2f waited %.2f\n", (r.sent - from) / 1e6, r.ms);
    }
  }
  for (const json& s : report.value("trace", json::array())) {
    if (s[1].get<double>() < 0.7) continue;
    std::fprintf(stderr, "    slice at %8.2f: %.2f ms, CPU %.2f; step %s %.2f\n",
                 (s[0].get<double>() - from) / 1e6, s[1].get<double>(), s[2].get<double>(),
                 s[3].get<std::string>().c_str(), s[4].get<double>());
  }
}

void Bench::p1_responsiveness() {
  // Each window's round trips are pooled with the same window's of the other rounds: the
  // producers piped into cat drain 2 GB in ~0.5 s, 100 probes, whose p99 would be their
  // worst answer; and in rounds, a busy spell of the machine does not fall on one way alone
  // (as in P3). Five rounds: the floor's p99 is then its fifth-worst answer of ~500. The Lua
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
    // A flood's own window (Neovim's clock, CLOCK_MONOTONIC as ours): from its start to its
    // last result, without the chat buffer opened before or the Lua runner's GC after.
    if (report.contains("started_ns") && report.contains("seconds")) {
      from = report["started_ns"].get<uint64_t>();
      to = from + static_cast<uint64_t>(report["seconds"].get<double>() * 1e9);
    }
    std::vector<double>& ms = samples[label];
    for (const auto& r : probe_->rtts(from, to)) ms.push_back(r.ms);
    if (o_.p1_trace && label != "idle") print_trace(label, from, to, report);
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
    // Neovim's slices (lua/toolhost/slices.lua) over every round: their count, and the worst
    // round's p50, p99 and max (ms).
    if (report.contains("slices")) {
      const json& round = report["slices"];
      const json before = previous.value("slices", json::object());
      json pooled = json::object();
      for (const char* key : {"slices", "steps"}) {
        pooled[key] = before.value(key, 0) + round.value(key, 0);
      }
      for (const char* key : {"p50", "p99", "max"}) {
        pooled[key] = std::max(before.value(key, 0.0), round.value(key, 0.0));
      }
      out["slices"] = pooled;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  };
  auto flood = [&](const char* via, int round) {
    window(via, [&] {
      return scenario("flood", {{"name", "p1_" + std::string(via) + "_" + std::to_string(round)},
                                {"via", via},
                                {"jobs", s_.p1_jobs},
                                {"bytes", s_.p1_bytes},
                                {"trace", o_.p1_trace}});
    });
  };
  const int rounds = o_.smoke ? 1 : 5;
  for (int round = 0; round < rounds; ++round) {
    window("idle", [&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(s_.p1_idle_s / rounds));
      return json();
    });
    // The same producers piped into cat, with neither toolhost nor Neovim involved: what the
    // machine's load alone does to Neovim's answers (2 cores, 8 writers and their readers).
    window("floor", [&] {
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

// The chat opened first, then attached with the probe running: the host reads it in slices
// (SPEC 9's max applies to opening a big chat too).
void Bench::p1_attach_stall() {
  json opened = scenario(
      "big_chat", {{"name", "p1_attach_open"}, {"mb", s_.attach_mb}, {"calls", s_.attach_calls}});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Neovim settles after the open
  probe_->probing(true);
  uint64_t from = now_ns();
  json report = scenario("attach_big", {{"name", "p1_attach"}, {"via", "toolhost"}});
  uint64_t to = now_ns();
  probe_->probing(false);
  scenario("drop_big", {{"name", "p1_attach_drop"}});
  std::vector<double> ms;
  for (const auto& r : probe_->rtts(from, to)) ms.push_back(r.ms);
  f_["p1_attach"] = {
      {"mb", s_.attach_mb},       {"rows", opened["rows"]},
      {"rtt_ms", stats(ms)},      {"read_ms", report["read_ms"]},
      {"calls", s_.attach_calls}, {"slices", report.value("slices", json::object())}};
}

}  // namespace toolhost::bench
