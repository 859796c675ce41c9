#pragma once
// An MCP server's tools as entries of toolhost's tool table (SPEC 13.3): named
// `{server}__{tool}`, described as the server describes them, with what the policy reads
// (RemoteTool: auto_approve from the server's spec, destructive from the hints, a fingerprint of
// the description and the schema). Pure functions.

#include <string>
#include <vector>

#include "core/tool_table.h"
#include "mcp/server_config.h"
#include "mcp/tool.h"

namespace toolhost::mcp {

// One server's listed tools, as Servers keeps them.
struct ServerTools {
  const ServerConfig* config = nullptr;
  std::vector<Tool> tools;
};

// A stable hash (FNV-1a, hex) of the description and the input schema: an approval by name
// holds while it stays the same.
std::string tool_fingerprint(const Tool& tool);

// Whether `config` lets `tool` run without approval, and whether by its name (the
// `auto_approve` list): only such an approval ends when the tool changes.
bool auto_approved(const ServerConfig& config, const Tool& tool, bool* by_name = nullptr);

// The tool table entries of every server's tools but its `disabled_tools`, in order; names
// that would clash get a short hash (tool_names.h).
std::vector<core::ToolSpec> tool_specs(const std::vector<ServerTools>& servers);

}  // namespace toolhost::mcp
