#pragma once
// What the tool files share when they build a job (internal to src/tools).

#include "core/result.h"
#include "core/tool_call.h"
#include "jobs/types.h"
#include "tools/runner.h"

namespace toolhost::tools {

// What every job of a call records, in the root, with the configured timeout or the model's
// (clamped).
jobs::JobSpec base_spec(const core::ToolCall& call, const RunContext& context);

// read_file, list_directory, create_or_replace_file, replace_in_file, delete_file, move_file,
// copy_file: functions off the loop, edits through the editor when it has the file loaded.
core::Result<jobs::JobSpec> file_job(const core::ToolCall& call, const RunContext& context);
bool is_file_tool(const std::string& tool);
// `rg` when it is on PATH, else `grep -rn`.
core::Result<jobs::JobSpec> search_job(const core::ToolCall& call, const RunContext& context);
// A Lua tool run by the editor: edit_buffer, or a custom `fn` tool (`op` "custom").
core::Result<jobs::JobSpec> lua_job(const core::ToolCall& call, const RunContext& context,
                                    const std::string& op);

}  // namespace toolhost::tools
