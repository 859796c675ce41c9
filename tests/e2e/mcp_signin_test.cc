// An HTTP MCP server that needs sign-in, from Neovim (:help toolhost-mcp-signin), against
// tests/fixtures/oauth_fake_server.mjs: the notification names the server and the authorization
// server's host, the URL opens ($BROWSER here: a curl that follows the redirects back to the
// host), the server's tools come once signed in, and :ToolMcp logout forgets the tokens.
// Skipped without Node.js.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "e2e/agents_helpers.h"
#include "e2e/mcp_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// The fake server for this test process; its stdin closing (the process's end) stops it.
int fake_oauth_port() {
  static int port = [] {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      execlp("node", "node", TOOLHOST_FIXTURES "/oauth_fake_server.mjs", nullptr);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    int main_port = 0, other_port = 0;
    FILE* output = fdopen(out[0], "r");
    if (pid <= 0 || !output || fscanf(output, "PORTS %d %d", &main_port, &other_port) != 2) {
      main_port = 0;
    }
    if (output) fclose(output);
    return main_port;
  }();
  return port;
}

// Its setup() keeps the harness's serve.at_startup = false and the test starts the host: with
// the host started by the plugin's timer instead (a setup() replaces the options), it waited
// 20 s for the notification in 4 of 9 loaded runs on 0.7.2.
TEST(McpSignIn, TheBrowserOpensTheToolsComeAndLogoutForgetsTheTokens) {
  int port = fake_oauth_port();
  if (port == 0) GTEST_SKIP() << "needs Node.js";
  ::setenv("BROWSER", TOOLHOST_FIXTURES "/../mcp_client/fetch_browser.sh", 1);
  NvimHarness nvim;
  nvim.forward_notify();
  nvim.forward_user_event("ToolhostToolsChanged");
  // $BROWSER's way on every Neovim (0.10's vim.ui.open would look for xdg-open).
  nvim.lua("vim.ui.open = nil");
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/t/neovim/mcp";
  nvim.lua(R"(
    require("toolhost").setup({ binary = require("toolhost.config").options.binary,
                                serve = { at_startup = false },
                                mcp = { servers = { docs = { url = ... } } } })
    require("toolhost.host").ensure()
  )",
           json::array({url}));
  std::string said = wait_notify_with(nvim, "needs sign-in");
  EXPECT_NE(said.find("toolhost: MCP server docs needs sign-in at 127.0.0.1; opened in your browser"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("/t/neovim/authorize?"), std::string::npos) << said;
  for (;;) {
    nvim.wait_for("ToolhostToolsChanged");
    json servers = mcp_servers(nvim)["servers"];
    if (servers[0]["state"] == "running") {
      EXPECT_EQ(servers[0]["tools"][0]["name"], "docs__whoami") << servers.dump();
      EXPECT_EQ(servers[0]["sign_in_url"], "");
      break;
    }
  }
  std::string record = nvim.lua("return require('toolhost.host').dirs().state").get<std::string>() +
                       "/mcp-oauth/docs.json";
  struct stat file {};
  ASSERT_EQ(::stat(record.c_str(), &file), 0) << record;
  EXPECT_EQ(file.st_mode & 0777, 0600u);

  nvim.command("ToolMcp logout docs");
  wait_notify_with(nvim, "signed out of MCP server docs");
  EXPECT_NE(::stat(record.c_str(), &file), 0) << record;
}

TEST(McpSignIn, LoginOfAnUnknownServerSaysSo) {
  NvimHarness nvim;
  nvim.forward_notify();
  nvim.command("ToolMcp login nobody");
  std::string said = wait_notify_with(nvim, "nobody");
  EXPECT_NE(said.find("no MCP server named \"nobody\""), std::string::npos) << said;
}

}  // namespace
}  // namespace toolhost::e2e
