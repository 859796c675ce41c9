#pragma once
// What the end-to-end benchmarks measure with: clocks, /proc figures of a process,
// percentiles, and the bare posix_spawn of the physical baselines.
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolhost::bench {

uint64_t now_ns();
double realtime_us();
// /proc/PID/status fields, in kB or counts; 0 when absent.
uint64_t status_field(const std::string& path, const std::string& key);
// utime + stime of a process (its threads included), in ms.
double cpu_ms(pid_t pid);
uint64_t rss_kb(pid_t pid);
// Context switches of every thread of the process.
uint64_t context_switches(pid_t pid);
double percentile(std::vector<double> values, double p);
// {n, p50, p99, max}
nlohmann::json stats(const std::vector<double>& values);

// posix_spawn with stdin on /dev/null (and stdout on `stdout_fd`); -1 when it fails.
pid_t spawn(const std::vector<std::string>& args, int stdout_fd = -1);
int wait_for_pid(pid_t pid);
// A stamp file a bench child wrote (CLOCK_REALTIME in ns), in microseconds.
double read_stamp_us(const std::string& path);

}  // namespace toolhost::bench
