#pragma once
// Signing in to the HTTP MCP servers that ask for it (OAuth 2.1, mcp/oauth_authorizer.h) from
// the command line: `toolhost mcp login SERVER` and `toolhost mcp logout SERVER`, and the
// sign-in `mcp list` and `mcp call` start when a server refuses them. The URL to open is
// printed on stderr and opened with $BROWSER where it is set; the tokens are kept in
// {state dir}/mcp-oauth/SERVER.json (mode 0600) and never printed.

#include <uv.h>

#include <iosfwd>
#include <memory>
#include <string>

#include "cli/mcp_command.h"
#include "mcp/oauth_authorizer.h"
#include "mcp/server_config.h"

namespace toolhost::cli {

// The authorizer of an HTTP server's connection: it says on `err` where to sign in.
std::shared_ptr<mcp::OAuthAuthorizer> make_authorizer(uv_loop_t* loop,
                                                      const mcp::ServerConfig& config,
                                                      const std::string& state_dir,
                                                      std::ostream& err);

// Exit codes: 0 signed in / out; 2 usage, configuration, or a sign-in that failed.
int run_mcp_login(const McpCommand& command, std::ostream& out, std::ostream& err);
int run_mcp_logout(const McpCommand& command, std::ostream& out, std::ostream& err);

}  // namespace toolhost::cli
