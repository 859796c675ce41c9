#pragma once
// tests/fixtures/oauth_fake_server.mjs (an MCP server that needs sign-in, its authorization
// server, and a second origin that records what reaches it), started once per test binary:
// null from get() without Node.js. Each test names a tenant of its own.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/oauth_http.h"

namespace toolhost::testing {

class OAuthFakeServer {
 public:
  static OAuthFakeServer* get() {
    static OAuthFakeServer* server = new OAuthFakeServer();
    return server->port_ > 0 ? server : nullptr;
  }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string mcp_url(const std::string& tenant) const { return origin() + "/t/" + tenant + "/mcp"; }
  void configure(const std::string& tenant, const nlohmann::json& config) const {
    mcp::oauth_post(origin() + "/control/" + tenant, config.dump(), "application/json");
  }
  // {"seen": [what the tenant's endpoints got], "other": [what the other origin got]}
  nlohmann::json seen(const std::string& tenant) const {
    return mcp::oauth_get(origin() + "/control/" + tenant).json();
  }

 private:
  OAuthFakeServer() {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execlp("node", "node", TOOLHOST_FIXTURES "/oauth_fake_server.mjs", nullptr);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    FILE* output = fdopen(out[0], "r");
    if (pid > 0 && output && fscanf(output, "PORTS %d %d", &port_, &other_port_) != 2) port_ = 0;
    if (output) fclose(output);
  }
  int port_ = 0;
  int other_port_ = 0;
};

}  // namespace toolhost::testing
