#include "cli/mcp_login.h"

#include <cstdlib>
#include <optional>
#include <ostream>

#include "cli/mcp_files.h"
#include "mcp/http_connection.h"
#include "mcp/oauth_store.h"

namespace toolhost::cli {
namespace {

// The configured HTTP server `name`, or null with why on `err`.
const mcp::ServerConfig* http_server(const McpServers& loaded, const std::string& name,
                                     std::ostream& err) {
  for (const auto& server : loaded.config.servers) {
    if (server.name != name) continue;
    if (!server.error.empty()) {
      err << "toolhost: " << name << ": " << server.error << "\n";
      return nullptr;
    }
    if (server.url.empty()) {
      err << "toolhost: " << name << " is started with a command, not reached by a url: it has no sign-in\n";
      return nullptr;
    }
    if (mcp::uses_static_authorization(server)) {
      err << "toolhost: " << name << " sends its own Authorization header (headers): it has no sign-in\n";
      return nullptr;
    }
    return &server;
  }
  err << "toolhost: no MCP server named \"" << name << "\"\n";
  return nullptr;
}

}  // namespace

std::shared_ptr<mcp::OAuthAuthorizer> make_authorizer(uv_loop_t* loop,
                                                      const mcp::ServerConfig& config,
                                                      const std::string& state_dir,
                                                      std::ostream& err) {
  mcp::OAuthAuthorizer::Options options;
  options.server = config.name;
  options.server_url = config.url;
  options.config = config.oauth;
  options.state_dir = state_dir;
  if (const char* browser = std::getenv("BROWSER"); browser && *browser) options.browser = browser;
  std::string name = config.name;
  bool opens = !options.browser.empty();
  options.on_sign_in = [&err, name, opens](const std::string& url, const std::string& host) {
    err << "toolhost: " << name << " needs sign-in at " << host << (opens ? "; opening" : "; open")
        << " this URL in a browser:\n  " << url << "\n";
  };
  options.on_signed_in = [&err, name](const std::string& error) {
    if (error.empty()) {
      err << "toolhost: " << name << ": signed in\n";
    } else {
      err << "toolhost: " << error << "\n";
    }
  };
  return mcp::OAuthAuthorizer::create(loop, std::move(options));
}

int run_mcp_login(const McpCommand& command, std::ostream& out, std::ostream& err) {
  auto loaded = load_mcp_servers(command, err);
  if (!loaded) {
    err << "toolhost: " << loaded.error() << "\n";
    return kMcpUsage;
  }
  const mcp::ServerConfig* server = http_server(*loaded, command.server, err);
  if (!server) return kMcpUsage;
  uv_loop_t loop;
  uv_loop_init(&loop);
  std::optional<std::optional<std::string>> result;
  {
    auto authorizer = make_authorizer(&loop, *server, command.state_dir, err);
    authorizer->sign_in([&](std::optional<std::string> error) { result = std::move(error); });
    while (!result && uv_run(&loop, UV_RUN_ONCE) != 0) {
    }
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // the authorizer's handle closes
  uv_loop_close(&loop);
  if (!result || *result) return kMcpUsage;  // the reason is on err already
  out << "signed in to " << server->name << "\n";
  return 0;
}

int run_mcp_logout(const McpCommand& command, std::ostream& out, std::ostream& err) {
  auto loaded = load_mcp_servers(command, err);
  if (!loaded) {
    err << "toolhost: " << loaded.error() << "\n";
    return kMcpUsage;
  }
  const mcp::ServerConfig* server = http_server(*loaded, command.server, err);
  if (!server) return kMcpUsage;
  std::string error;
  bool removed = mcp::remove_oauth_record(command.state_dir, server->name, error);
  if (!error.empty()) {
    err << "toolhost: " << error << "\n";
    return kMcpUsage;
  }
  out << (removed ? "signed out of " : "not signed in to ") << server->name << "\n";
  return 0;
}

}  // namespace toolhost::cli
