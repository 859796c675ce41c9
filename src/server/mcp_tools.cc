#include "server/mcp_tools.h"

#include "base/log.h"

namespace toolhost::server {

McpTools::McpTools(uv_loop_t* loop, const std::string& state_dir, const std::string& cache_dir,
                   const std::string& version, const core::ToolTable& table,
                   std::function<void()> tools_changed, mcp::ServerElicit elicit,
                   mcp::ServerSignIn sign_in)
    : table_(table),
      servers_(
          loop,
          [&] {
            mcp::Servers::Options options;
            options.state_dir = state_dir;
            options.cache_dir = cache_dir;
            options.version = version;
            options.elicit = std::move(elicit);
            options.sign_in = std::move(sign_in);
            return options;
          }(),
          mcp::Servers::Events{std::move(tools_changed)}),
      fingerprints_(state_dir) {}

const core::ToolSpec* McpTools::find(const std::string& name) const {
  const core::ToolSpec* spec = table_.find(name);
  return spec && spec->remote ? spec : nullptr;
}

core::Result<jobs::StreamFunction> McpTools::call(const core::RemoteTool& tool,
                                                  const nlohmann::json& arguments) {
  return servers_.call(tool, arguments);
}

uint64_t McpTools::timeout_ms(const core::RemoteTool& tool) const {
  return servers_.timeout_ms(tool.server);
}

std::optional<std::string> McpTools::approved_fingerprint(const core::RemoteTool& tool) const {
  return fingerprints_.get(tool.server, tool.tool);
}

void McpTools::record_fingerprint(const core::RemoteTool& tool) {
  std::string error = fingerprints_.set(tool.server, tool.tool, tool.fingerprint);
  if (!error.empty()) log::warn("mcp: " + error);
}

core::ToolTable tool_table_with(const core::Config& config, const mcp::Servers& servers) {
  core::ToolTable table = core::tool_table_for(config);
  for (core::ToolSpec& spec : servers.tool_specs()) {
    if (table.find(spec.name)) {
      log::warn("mcp: the tool name " + spec.name + " is taken: the server's tool is left out");
      continue;
    }
    table.tools.push_back(std::move(spec));
  }
  return table;
}

}  // namespace toolhost::server
