#include "agents/tool_list.h"

#include "base/log.h"
#include "core/tool_schema.h"

namespace toolhost::agents {

std::vector<mcp::Tool> mcp_tools(const core::Config& config) {
  std::vector<mcp::Tool> tools;
  auto listed = core::tools_json(config, "mcp");
  if (!listed) {
    log::error("tools for agents: " + listed.error());
    return tools;
  }
  for (const auto& entry : *listed) {
    std::string error;
    if (auto tool = mcp::tool_from_json(entry, error)) {
      tools.push_back(std::move(*tool));
    } else {
      log::error("tools for agents: " + error);
    }
  }
  return tools;
}

}  // namespace toolhost::agents
