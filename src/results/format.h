#pragma once
// Texts shared by diagnostics and result blocks.

#include <optional>
#include <string>

#include "jobs/job_json.h"
#include "jobs/types.h"

namespace toolhost::results {

std::string format_duration(double seconds);      // "1.24s" (result blocks, ✓ diagnostics)
std::string format_elapsed(double seconds);       // "3s", "2m05s" (running diagnostics)
std::string format_timeout(uint64_t timeout_ms);  // "120s"
// "SIGTERM": the job engine names signals for history and jobs.* the same way.
using jobs::signal_name;

// The diagnostic of a finished job: "✓ {tool} (1.24s)", "✗ {tool}: exit 2", …
std::string finished_message(const jobs::JobInfo& job);
// "⟳ {tool} (running 3s)"
std::string running_message(const std::string& tool, double elapsed_s);

}  // namespace toolhost::results
