#include "report.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "measure.h"
#include "report_rows.h"

namespace toolhost::bench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string signed_mb(double v) {
  return (v >= 0 ? "+" : "") + fmt(v, 1);
}

// P1 (SPEC 9, revised 2026-11-24): toolhost's p99 against the machine's floor under the same
// load (the same producers piped into cat, no Neovim job, same run), its max against a frame,
// and the Lua runner against toolhost.
void p1_rows(const json& f, std::vector<Row>& r) {
  auto n = [&](const std::string& p) { return num(f, p); };
  double floor99 = n("/p1/floor/rtt_ms/p99"), th99 = n("/p1/toolhost/rtt_ms/p99"),
         th_max = n("/p1/toolhost/rtt_ms/max"), lua99 = n("/p1/lua/rtt_ms/p99");
  auto triple = [&](const std::string& via) {
    std::string base = "/p1/" + via + "/rtt_ms/";
    return fmt(n(base + "p50")) + " / " + fmt(n(base + "p99")) + " / " + fmt(n(base + "max"));
  };
  r.push_back(
      {"P1 nvim_eval round trip while " + fmt(n("/p1/jobs"), 0) + " jobs stream " +
           fmt(n("/p1/total_bytes") / (1 << 20), 0) + " MiB, p50 / p99 / max (ms), " +
           fmt(n("/p1/toolhost/rounds"), 0) + " rounds pooled; idle: " + triple("idle"),
       triple("toolhost"), triple("lua"),
       "floor " + triple("floor") + " (the same producers \\| cat, no Neovim job)",
       "p99 " + fmt(th99 / floor99) + "× the floor; max " + fmt(th_max) + " ms; Lua/toolhost p99 " +
           fmt(lua99 / th99, 1) + "×",
       "p99 ≤ 2× the floor; max ≤ 16 ms; ≥ 20× better than Lua",
       yes(th99 <= 2 * floor99) + " / " + yes(th_max <= 16) + " / " + yes(lua99 >= 20 * th99)});
  r.push_back(
      {"P1 Neovim's slices applying toolhost's feedback (count; p50 / p99 / max, ms; worst "
       "round)",
       fmt(n("/p1/toolhost/slices/slices"), 0) + "; " + fmt(n("/p1/toolhost/slices/p50"), 3) +
           " / " + fmt(n("/p1/toolhost/slices/p99"), 3) + " / " +
           fmt(n("/p1/toolhost/slices/max"), 3),
       "", "", "", "", ""});
  r.push_back({"P1 Neovim RSS growth while streaming (MB)",
               fmt(n("/p1/toolhost/nvim_growth_mb"), 1), fmt(n("/p1/lua/nvim_growth_mb"), 1), "",
               "", "", ""});
}

std::vector<Row> rows(const json& f) {
  auto n = [&](const char* p) { return num(f, p); };
  std::vector<Row> r;
  p1_rows(f, r);
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
  // P10 (issue #38)
  double p10 = n("/p10/sandboxed/p50"), p10_spawn = n("/p10/posix_spawn/p50");
  r.push_back({"P10 :ToolRun → child exec in the sandbox, p50 (ms)", fmt(p10, 3),
               fmt(n("/p10/toolhost/p50"), 3) + " (:ToolRun outside)",
               fmt(p10_spawn, 3) + " (posix_spawn)", fmt(p10 / p10_spawn) + "×", "≤ 1.5×",
               yes(p10 <= 1.5 * p10_spawn)});
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
  // P1, opening a big chat
  double attach_max = n("/p1_attach/rtt_ms/max");
  r.push_back({"P1 nvim_eval round trip while a " + fmt(n("/p1_attach/mb"), 0) + " MB chat (" +
                   fmt(n("/p1_attach/rows"), 0) + " rows, " + fmt(n("/p1_attach/calls"), 0) +
                   " calls) is attached and read in " + fmt(n("/p1_attach/read_ms"), 0) +
                   " ms, p50 / max (ms)",
               fmt(n("/p1_attach/rtt_ms/p50")) + " / " + fmt(attach_max), "", "", "", "max ≤ 16",
               yes(attach_max <= 16)});
  p9_rows(f, r);
  p8_rows(f, r);
  p11_rows(f, r);
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

std::string write_report(const json& figures, const std::vector<std::string>& micro_files,
                         bool smoke, const std::string& out) {
  json result = {{"date", utc_now()},    {"smoke", smoke},
                 {"machine", machine()}, {"neovim", figures["neovim"]},
                 {"figures", figures},   {"micro", read_micro(micro_files)}};
  std::string md = "# toolhost benchmarks\n\n";
  md += std::string(smoke ? "**Smoke run (tiny sizes): not figures to read.**\n\n" : "");
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
  fs::create_directories(fs::path(out).parent_path());
  std::ofstream(out + ".md") << md;
  std::ofstream(out + ".json") << result.dump(2) << "\n";
  return md;
}

}  // namespace toolhost::bench
