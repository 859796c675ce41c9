#pragma once
// The report of the end-to-end benchmarks: one table of every figure with its baselines,
// ratio, target and whether it is met (OUT.md), and the figures themselves (OUT.json).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolhost::bench {

// `figures` as Bench::run() returns them; `micro_files` are Google Benchmark JSON outputs.
// Writes OUT.md and OUT.json; returns the markdown.
std::string write_report(const nlohmann::json& figures, const std::vector<std::string>& micro_files,
                         bool smoke, const std::string& out);

}  // namespace toolhost::bench
