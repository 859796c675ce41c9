// The supervisor with an HTTP server that needs sign-in (tests/fixtures/oauth_fake_server.mjs):
// its start waits for the sign-in, which the owner is told about (the URL, the authorization
// server's host) and :ToolMcp's status shows; once the browser came back, its tools are
// listed; logout forgets the tokens. Skipped without Node.js.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "mcp/oauth_store.h"
#include "mcp_servers_fixture.h"
#include "oauth_fake_server.h"

namespace toolhost::mcp {
namespace {

class McpServersSignIn : public ServersTest {};

TEST_F(McpServersSignIn, AServerWaitsForItsSignInThenListsItsToolsAndLogoutForgetsIt) {
  auto* fake = testing::OAuthFakeServer::get();
  if (!fake) GTEST_SKIP() << "needs Node.js";
  ServerConfig config;
  config.name = "fake";
  config.url = fake->mcp_url("servers");
  config.oauth.timeout_ms = 20'000;
  Servers::Options options;
  std::string asked_server, asked_url, asked_host;
  options.sign_in = [&](const std::string& server, const std::string& url, const std::string& host) {
    asked_server = server;
    asked_url = url;
    asked_host = host;
  };
  make({config}, options);  // no cached tools: it starts at once, and is refused
  ASSERT_TRUE(run([&] { return !asked_url.empty(); })) << status().dump();
  EXPECT_EQ(asked_server, "fake");
  EXPECT_EQ(asked_host, "127.0.0.1");
  EXPECT_EQ(status()["sign_in_url"], asked_url);
  EXPECT_EQ(status()["state"], "starting");
  // The user's browser follows the URL back to the host's listener.
  std::string browser = TOOLHOST_FIXTURES "/../mcp_client/fetch_browser.sh '" + asked_url + "'";
  ASSERT_EQ(std::system(browser.c_str()), 0);
  ASSERT_TRUE(run([&] { return tool("fake__whoami").has_value(); })) << status().dump();
  EXPECT_EQ(status()["sign_in_url"], "");
  EXPECT_TRUE(logged("signed in"));
  // Neither the log nor the status holds the token.
  EXPECT_EQ(status().dump().find("access-servers"), std::string::npos);
  struct stat file {};
  ASSERT_EQ(stat(oauth_record_path(state_.path(), "fake").c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);

  auto out = servers_->logout("fake");
  ASSERT_TRUE(out) << out.error();
  EXPECT_NE(stat(oauth_record_path(state_.path(), "fake").c_str(), &file), 0);
  EXPECT_TRUE(logged("signed out"));
  EXPECT_FALSE(servers_->logout("nobody"));
}

TEST_F(McpServersSignIn, LoginOfAStdioServerSaysItHasNone) {
  ServerConfig config;
  config.name = "local";
  config.stdio.command = "true";
  make({config});
  std::optional<std::optional<std::string>> said;
  servers_->login("local", [&](std::optional<std::string> error) { said = error; });
  ASSERT_TRUE(said.has_value());
  ASSERT_TRUE(said->has_value());
  EXPECT_EQ(**said, "local is started with a command: it has no sign-in");
}

}  // namespace
}  // namespace toolhost::mcp
