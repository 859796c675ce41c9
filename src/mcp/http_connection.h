#pragma once
// An MCP server reached over Streamable HTTP (SPEC 13.3): jsonrpc's HttpTransport given MCP's
// names. The session is `Mcp-Session-Id` (a 404 to it closes the connection: the supervisor's
// next start opens a new session with initialize); the Client adds `MCP-Protocol-Version` once
// the handshake agreed on one (Transport::established), which also opens the GET stream for the
// server's own messages; closing sends the DELETE that ends the session.

#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "jsonrpc/http_transport.h"
#include "mcp/server_config.h"

namespace toolhost::mcp {

constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kProtocolVersionHeader = "MCP-Protocol-Version";

// Null with the reason in `error` when the server's `url` cannot be used. `log` gets what went
// wrong outside any call (a notification refused, the GET stream given up). `authorizer` (an
// OAuthAuthorizer, oauth_authorizer.h) signs in when the server asks; null: a 401 fails.
std::unique_ptr<jsonrpc::HttpTransport> connect_http(
    uv_loop_t* loop, const ServerConfig& config, std::function<void(const std::string& what)> log,
    std::string& error, std::shared_ptr<jsonrpc::HttpAuthorizer> authorizer = nullptr);

// A server whose headers carry their own Authorization signs in no other way.
bool uses_static_authorization(const ServerConfig& config);
// An HTTP server without its own Authorization: it signs in (OAuth) when it asks.
inline bool signs_in(const ServerConfig& config) {
  return !config.url.empty() && !uses_static_authorization(config);
}

}  // namespace toolhost::mcp
