#include "results/format.h"

#include <cstdio>
#include <cstring>

#include "results/sandbox_notes.h"

namespace toolhost::results {

std::string format_duration(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fs", seconds);
  return text;
}

std::string format_elapsed(double seconds) {
  auto whole = static_cast<long>(seconds);
  char text[32];
  if (whole < 60) {
    std::snprintf(text, sizeof text, "%lds", whole);
  } else {
    std::snprintf(text, sizeof text, "%ldm%02lds", whole / 60, whole % 60);
  }
  return text;
}

std::string format_timeout(uint64_t timeout_ms) {
  if (timeout_ms % 1000 == 0) return std::to_string(timeout_ms / 1000) + "s";
  return format_duration(static_cast<double>(timeout_ms) / 1000.0);
}

std::string finished_message(const jobs::JobInfo& job) {
  const std::string& tool = job.spec.tool;
  switch (job.status) {
    case core::Status::Succeeded: return "✓ " + tool + " (" + format_duration(job.duration_s) + ")";
    case core::Status::TimedOut:
      return "✗ " + tool + ": timed out after " + format_timeout(job.spec.timeout_ms);
    case core::Status::Canceled: return "✗ " + tool + ": canceled";
    case core::Status::Interrupted: return "✗ " + tool + ": interrupted";
    default: break;
  }
  const std::string denied = likely_denied(job) ? " (likely denied by the sandbox)" : "";
  if (!job.error.empty()) return "✗ " + tool + ": " + job.error + denied;
  if (job.term_signal) return "✗ " + tool + ": " + signal_name(*job.term_signal) + denied;
  return "✗ " + tool + ": exit " + std::to_string(job.exit_code.value_or(-1)) + denied;
}

std::string running_message(const std::string& tool, double elapsed_s) {
  return "⟳ " + tool + " (running " + format_elapsed(elapsed_s) + ")";
}

}  // namespace toolhost::results
