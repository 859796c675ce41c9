#pragma once
// `toolhost mcp list [SERVER]` and `toolhost mcp call SERVER TOOL [JSON]` (SPEC 13.4): the
// MCP servers of a config file's `mcp.servers` and of the files users keep (mcp_files.h),
// started on stdio, their tools listed or one called, then stopped.
//
// Exit codes: 0 done; 1 the tool failed (an `isError` result, or the server answered the call
// with an error); 2 usage or configuration, or a server that could not be started, reached or
// that did not answer in time; 128 + the signal when `call` was interrupted (^C: 130).

#include <iosfwd>
#include <string>

namespace toolhost::cli {

// The exit codes above, named.
constexpr int kMcpToolFailed = 1;  // also: `accept` declined
constexpr int kMcpUsage = 2;

struct McpCommand {
  std::string config_file;  // setup() options as JSON, with `mcp.servers`
  std::string server;       // list: only this one (empty: all); call: required
  std::string tool;         // call: the tool's name as the server lists it
  std::string arguments;    // call: a JSON object (empty: {})
  std::string version;      // toolhost's, sent as clientInfo
  // Where the MCP files are (mcp/config_files.h): the project root (main: the current
  // directory; empty: no project files), {config} and $HOME (empty: from the environment).
  std::string project_root;
  std::string config_home;
  std::string home;
  std::string state_dir;  // the accepted project files (mcp/project_trust.h)
  std::string file;       // accept: only this project file
  bool yes = false;       // accept: without asking
};

// Every configured server's tools (or SERVER's), on `out`; a server that fails is reported on
// `err` and the others still listed.
int run_mcp_list(const McpCommand& command, std::ostream& out, std::ostream& err);
// The result's text on `out`; progress and the server's log messages on `err`.
int run_mcp_call(const McpCommand& command, std::ostream& out, std::ostream& err);

}  // namespace toolhost::cli
