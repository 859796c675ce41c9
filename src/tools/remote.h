#pragma once
// The tools of MCP servers, as the runner and the policy see them (SPEC 13.3). src/tools links
// no MCP: the host implements this over mcp::Servers (server/mcp_tools.h) and hands it over in
// RunContext; without one (the CLI), such tools are unknown.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/tool_table.h"
#include "jobs/types.h"

namespace toolhost::tools {

class RemoteTools {
 public:
  virtual ~RemoteTools() = default;
  // The tool table entry named `name` when it is an MCP server's tool (ToolSpec::remote set).
  virtual const core::ToolSpec* find(const std::string& name) const = 0;
  // A call as a job's stream function, or why it cannot run (its arguments do not fit the
  // tool's input schema: the message names the parameter, and nothing is sent).
  virtual core::Result<jobs::StreamFunction> call(const core::RemoteTool& tool,
                                                  const nlohmann::json& arguments) = 0;
  // The call's own timeout (the server's `timeout_ms`).
  virtual uint64_t timeout_ms(const core::RemoteTool& tool) const = 0;
  // The fingerprint the tool had when it was first approved by name (none yet: nullopt), and
  // the one a run (auto-run's, or the user's approval) records.
  virtual std::optional<std::string> approved_fingerprint(const core::RemoteTool& tool) const = 0;
  virtual void record_fingerprint(const core::RemoteTool& tool) = 0;
};

}  // namespace toolhost::tools
