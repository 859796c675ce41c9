#pragma once
// toolhost's tools as an outside agent sees them over MCP (SPEC 13.5): every built-in and
// custom tool of the configuration, with the schema and hints of the core tool table.

#include <vector>

#include "core/config.h"
#include "mcp/tool.h"

namespace toolhost::agents {

std::vector<mcp::Tool> mcp_tools(const core::Config& config);

}  // namespace toolhost::agents
