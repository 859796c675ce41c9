#pragma once
// Turns a parsed tool call into a job, or says why policy refuses it (SPEC 7).

#include <string>
#include <variant>

#include "jobs/types.h"
#include "parse/types.h"

namespace toolhost::tools {

struct RunOptions {
  std::string shell = "sh";
  std::string root;  // project root: cwd of every job
  uint64_t timeout_ms = 120000;
  uint64_t max_timeout_ms = 600000;
};

struct Refusal {
  std::string reason;
};

std::variant<jobs::JobSpec, Refusal> job_for(const parse::ToolCall& call,
                                             const RunOptions& options);

// A model-supplied timeout: clamped to max_timeout_ms, and ≤ 0 means max_timeout_ms (only
// the user's config can switch the timeout off).
uint64_t clamp_model_timeout(const nlohmann::json& value, uint64_t max_timeout_ms);

// Whether `path` (relative to root, or absolute) resolves inside `root`: realpath of the
// deepest existing ancestor, so `..` and symlinks that leave the root are caught.
bool resolves_inside(const std::string& root, const std::string& path);

}  // namespace toolhost::tools
