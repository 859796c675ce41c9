#pragma once
// The servers `toolhost mcp list|call` use: `--config FILE.json`'s `mcp.servers` as setup()'s,
// then the files users keep ({config}/toolhost/mcp.json, mcphub's servers.json, the project's
// .mcp.json and .vscode/mcp.json), merged as in Neovim (mcp/config_files.h). A project file not
// accepted yet is skipped, with a message on stderr saying how to accept it; `toolhost mcp
// accept [FILE]` shows each pending file's commands and asks (SPEC 13.2).

#include <iosfwd>
#include <map>
#include <string>

#include "cli/mcp_command.h"
#include "core/result.h"
#include "mcp/server_config.h"

namespace toolhost::cli {

struct McpServers {
  mcp::ServersConfig config;                // what may start, in name order
  std::map<std::string, std::string> held;  // the servers of unaccepted project files: why
};

// The servers; every file's problem, name clash and skipped project file is reported on `err`.
// An error: the --config file cannot be read, or no server is configured anywhere.
core::Result<McpServers> load_mcp_servers(const McpCommand& command, std::ostream& err);

// `toolhost mcp accept [FILE] [--yes]`: prints every pending project file's servers and asks on
// `in` (only when `interactive`, unless `yes`). Exit: 0 accepted (or nothing pending), 1 one was
// declined, 2 usage (no terminal without --yes, FILE is not a project file) or an error.
int run_mcp_accept(const McpCommand& command, std::istream& in, bool interactive, std::ostream& out,
                   std::ostream& err);

}  // namespace toolhost::cli
