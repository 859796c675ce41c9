#include "mcp/http_connection.h"

#include <strings.h>

namespace toolhost::mcp {

bool uses_static_authorization(const ServerConfig& config) {
  for (const auto& header : config.headers) {
    if (strcasecmp(header.first.c_str(), "Authorization") == 0) return true;
  }
  return false;
}

std::unique_ptr<jsonrpc::HttpTransport> connect_http(
    uv_loop_t* loop, const ServerConfig& config, std::function<void(const std::string& what)> log,
    std::string& error, std::shared_ptr<jsonrpc::HttpAuthorizer> authorizer) {
  jsonrpc::HttpTransport::Options options;
  options.url = config.url;
  options.headers = config.headers;
  options.session_header = kSessionHeader;
  options.on_error = std::move(log);
  if (!uses_static_authorization(config)) options.authorizer = std::move(authorizer);
  return jsonrpc::HttpTransport::create(loop, std::move(options), error);
}

}  // namespace toolhost::mcp
