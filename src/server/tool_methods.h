#pragma once
// toolhost.tools (SPEC 13.4): every tool of this host's table (built-in, custom, the MCP
// servers') with its JSON Schema,
// for `require("toolhost").tools()`. Answered from memory: it never waits on a job.

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/tool_table.h"

namespace toolhost::server {

// {format?: "openai" (default) | "anthropic" | "mcp"} -> the list of tools
core::Result<nlohmann::json> tools_list(const core::ToolTable& table, const nlohmann::json& args);

}  // namespace toolhost::server
