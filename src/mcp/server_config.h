#pragma once
// The MCP servers a user configured (SPEC 13.2): the `mcp.servers` table of setup() options,
// NAME -> spec. Read so far: `command`, `args`, `env`, `cwd` (stdio), `url` (HTTP, recognised
// but not run yet), `disabled`, `timeout_ms`, `startup_timeout_ms`, `protocol`. `${VAR}` and
// `${env:VAR}` in the strings take the environment's values; nothing else runs to expand a value.
// Pure.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/stdio_server.h"

namespace toolhost::mcp {

struct ServerConfig {
  std::string name;
  StdioSpec stdio;
  std::string url;  // set for an HTTP server
  bool disabled = false;
  uint64_t timeout_ms = 60'000;  // a call's own timeout
  uint64_t startup_timeout_ms = 10'000;
  // `protocol = "2026-07-28"`: probe server/discover before initialize ("auto": after).
  bool discover_first = false;
  // What is wrong with this server's spec; the others are still usable.
  std::string error;
};

using Lookup = std::function<std::optional<std::string>(const std::string& name)>;

// `${VAR}` and `${env:VAR}` replaced by `lookup(VAR)`; a variable it does not know is an error
// (an empty token would fail later and more obscurely). Other text, `$VAR` among it, stays.
std::optional<std::string> expand_variables(const std::string& text, const Lookup& lookup,
                                            std::string& error);

// The servers of setup()'s `mcp` table (null or absent: none), in name order. An `mcp` that
// is not a table, or `servers` that is not one, is an error for all.
struct ServersConfig {
  std::vector<ServerConfig> servers;
  std::string error;
};
ServersConfig servers_from_json(const nlohmann::json& mcp, const Lookup& lookup);

// The process's environment, as servers_from_json looks variables up.
Lookup environment_lookup();

}  // namespace toolhost::mcp
