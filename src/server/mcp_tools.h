#pragma once
// The composition of MCP with the rest (SPEC 13.1): the configured servers (mcp::Servers) seen
// by the runner and the policy as tools::RemoteTools, with the fingerprints of the tools
// approved by name. The host owns one; its tool table holds the servers' tools.

#include <uv.h>

#include <functional>
#include <string>

#include "core/tool_table.h"
#include "mcp/servers.h"
#include "tools/approved_fingerprints.h"
#include "tools/remote.h"

namespace toolhost::server {

class McpTools : public tools::RemoteTools {
 public:
  // `table`: the host's tool table, where find() looks (it holds the servers' tools);
  // `elicit`: who answers the servers' questions (the `elicitation` capability); `sign_in`: who
  // tells the user that a server waits for its sign-in, and opens its URL.
  McpTools(uv_loop_t* loop, const std::string& state_dir, const std::string& cache_dir,
           const std::string& version, const core::ToolTable& table,
           std::function<void()> tools_changed, mcp::ServerElicit elicit,
           mcp::ServerSignIn sign_in);

  mcp::Servers& servers() { return servers_; }

  const core::ToolSpec* find(const std::string& name) const override;
  core::Result<jobs::StreamFunction> call(const core::RemoteTool& tool,
                                          const nlohmann::json& arguments) override;
  uint64_t timeout_ms(const core::RemoteTool& tool) const override;
  std::optional<std::string> approved_fingerprint(const core::RemoteTool& tool) const override;
  void record_fingerprint(const core::RemoteTool& tool) override;

 private:
  const core::ToolTable& table_;
  mcp::Servers servers_;
  tools::ApprovedFingerprints fingerprints_;
};

// The built-in and custom tools of `config`, then every server's tools (a name already taken
// keeps its first owner).
core::ToolTable tool_table_with(const core::Config& config, const mcp::Servers& servers);

}  // namespace toolhost::server
