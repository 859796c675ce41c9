#pragma once
// `toolhost mcp serve [--socket PATH] [--approve all] [--config FILE.json]`: an MCP server on
// stdio for outside agents (SPEC 13.5). Relays to the Neovim that serves the agent's project
// when there is one; else runs the tools itself with `toolhost run`'s policy.

#include <iosfwd>
#include <string>

namespace toolhost::cli {

struct ServeCommand {
  std::string config_file;  // setup() options as JSON (custom tools, allow-list, timeouts)
  std::string approve;      // "all": every call runs without approval (sandboxes, CI)
  std::string socket;       // a host's socket to relay to (`--socket`, `$TOOLHOST_SOCKET`)
  std::string state_dir;    // the job history and the hosts' registry, shared with Neovim's
  std::string cache_dir;
  std::string version;
  std::string root;  // empty: the current directory
};

// Serves until the agent closes stdin (or a signal); 0, or 2 when it could not start (the
// reason on `err`, which is also the log: stdout carries only JSON-RPC).
int run_serve_command(const ServeCommand& command, std::ostream& err);

}  // namespace toolhost::cli
