#pragma once
// A project's `.mcp.json` written for Claude Code lists toolhost itself (`toolhost mcp serve`).
// Started by this host as one of its MCP servers, it would find this very host in the registry
// and relay to it: a chat's call of one of its tools would come back to the same Neovim as an
// outside agent's call. The host leaves such a server off and says why.

#include <string>

#include "mcp/stdio_server.h"

namespace toolhost::server {

// Whether `spec` starts toolhost's `mcp serve`: its command is this executable (`self_exe`,
// symlinks resolved; a bare name is looked up in `path`, a $PATH) or any program named
// `toolhost`, and its arguments begin `mcp serve`.
bool starts_toolhost_serve(const mcp::StdioSpec& spec, const std::string& self_exe,
                           const std::string& path);

// The error that keeps such a server off.
inline constexpr const char* kServesItself =
    "this is toolhost's own `mcp serve` (for outside agents): a Neovim host does not use "
    "itself as an MCP server, so it is left off";

}  // namespace toolhost::server
