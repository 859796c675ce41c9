#pragma once
// Turns a parsed tool call into a job, or says why policy refuses it (SPEC 7).

#include <string>

#include "core/config.h"
#include "core/result.h"
#include "core/tool_call.h"
#include "jobs/types.h"

namespace toolhost::tools {

// The job that runs `call` in project `root`, or the refusal's reason: a tool that cannot
// run yet, a parameter of the wrong type, a `cwd` or `path` outside the root (a `failed`
// result, SPEC 4). A terminal command is a process; read_file and list_directory are functions
// (file_ops) the engine runs off the loop.
core::Result<jobs::JobSpec> job_for(const core::ToolCall& call, const core::Config& config,
                                    const std::string& root);

// A model-supplied timeout: clamped to max_timeout_ms, and ≤ 0 means max_timeout_ms (only
// the user's config can switch the timeout off).
uint64_t clamp_model_timeout(const nlohmann::json& value, uint64_t max_timeout_ms);

}  // namespace toolhost::tools
