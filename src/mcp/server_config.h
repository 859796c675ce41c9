#pragma once
// The MCP servers a user configured (SPEC 13.2): the `mcp.servers` table of setup() options,
// NAME -> spec: `command`, `args`, `env`, `cwd` (stdio) or `url`, `headers`, `oauth` (HTTP); `disabled`,
// `auto_approve`, `disabled_tools`, `trusted`, `timeout_ms`, `startup_timeout_ms`, `protocol`.
// `${VAR}` and
// `${env:VAR}` in the strings take the environment's values; nothing else runs to expand a value.
// Pure.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/oauth_config.h"
#include "mcp/stdio_server.h"

namespace toolhost::mcp {

struct ServerConfig {
  std::string name;
  StdioSpec stdio;
  std::string url;                                           // set for an HTTP server
  std::vector<std::pair<std::string, std::string>> headers;  // sent with every HTTP request
  OAuthConfig oauth;  // how to sign in, when the server asks (HTTP only)
  bool disabled = false;
  bool auto_approve_all = false;          // `auto_approve = true`
  std::vector<std::string> auto_approve;  // the tools (their own names) that run unapproved
  std::vector<std::string> disabled_tools;
  bool trusted = false;          // honour the server's readOnlyHint
  uint64_t timeout_ms = 60'000;  // a call's own timeout
  uint64_t startup_timeout_ms = 10'000;
  // `protocol = "2026-07-28"`: probe server/discover before initialize ("auto": after).
  bool discover_first = false;
  // What is wrong with this server's spec; the others are still usable.
  std::string error;
  // Where it was configured: "setup()" or a file's path (config_files.h). Not part of hash().
  std::string source;
  // What the server is (how it is started or reached, and the protocol asked for), hashed: its
  // cached tools belong to this hash.
  std::string hash() const;
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
