#pragma once
// A custom tool's job (SPEC 7): `cmd` argv templates, `cmds` sequences, `shell = true`.

#include "core/custom_tool.h"
#include "core/result.h"
#include "core/tool_call.h"
#include "jobs/types.h"
#include "tools/runner.h"

namespace toolhost::tools {

core::Result<jobs::JobSpec> custom_job(const core::ToolCall& call, const core::CustomTool& tool,
                                       const RunContext& context);

}  // namespace toolhost::tools
