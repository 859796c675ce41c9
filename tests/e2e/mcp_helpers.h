#pragma once
// What the MCP end-to-end tests share: where the reference server's script is
// (@modelcontextprotocol/server-everything in tests/mcp/node_modules, from
// scripts/install-test-node-deps; $TOOLHOST_MCP_NODE_MODULES points elsewhere), why a test
// cannot run without it, a chat block calling a tool, and the host's view of its servers.

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

inline std::string everything_index() {
  const char* modules = std::getenv("TOOLHOST_MCP_NODE_MODULES");
  std::string dir = modules && *modules ? modules : TOOLHOST_SOURCE_DIR "/tests/mcp/node_modules";
  return dir + "/@modelcontextprotocol/server-everything/dist/index.js";
}

// Why server-everything cannot run here (no Node.js, or the package missing); empty when it can.
inline std::string why_no_everything() {
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    return "the MCP tests need Node.js 20 or newer";
  }
  if (!std::filesystem::exists(everything_index())) {
    return everything_index() + " is missing: run scripts/install-test-node-deps";
  }
  return "";
}

// An assistant reply holding one JSON fence that calls `tool`.
inline Lines json_call_block(const std::string& tool, const nlohmann::json& arguments) {
  return {"ASSISTANT: Calling it.", "", "```json",
          nlohmann::json{{"tool", tool}, {"parameters", arguments}}.dump(), "```"};
}

// Waits until the host's tool table holds `tool` (its server listed its tools); needs
// record_events() with ToolhostToolsChanged. False after 200 changes without it.
inline bool wait_for_mcp_tool(NvimHarness& nvim, const std::string& tool) {
  for (int i = 0; i < 200; ++i) {
    nlohmann::json names = nvim.lua(R"(
      local names = {}
      for _, t in ipairs(require("toolhost").tools({ format = "mcp" }) or {}) do
        names[#names + 1] = t.name
      end
      return names
    )");
    for (const auto& name : names) {
      if (name == tool) return true;
    }
    wait_event(nvim, "ToolhostToolsChanged");
  }
  return false;
}

// The host's `toolhost.mcp_servers` answer: {servers = [...]}.
inline nlohmann::json mcp_servers(NvimHarness& nvim) {
  return nvim.lua(
      "return vim.rpcrequest(require('toolhost.host').ensure(), 'toolhost.mcp_servers', {})");
}

}  // namespace toolhost::e2e
