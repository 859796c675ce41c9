#include "mcp/http_connection.h"

namespace toolhost::mcp {

std::unique_ptr<jsonrpc::HttpTransport> connect_http(
    uv_loop_t* loop, const ServerConfig& config, std::function<void(const std::string& what)> log,
    std::string& error) {
  jsonrpc::HttpTransport::Options options;
  options.url = config.url;
  options.headers = config.headers;
  options.session_header = kSessionHeader;
  options.on_error = std::move(log);
  return jsonrpc::HttpTransport::create(loop, std::move(options), error);
}

}  // namespace toolhost::mcp
