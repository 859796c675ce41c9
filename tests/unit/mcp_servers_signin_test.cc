// The supervisor with an HTTP server that needs sign-in (tests/fixtures/oauth_fake_server.mjs):
// its start waits for the sign-in, which the owner is told about (the URL, the authorization
// server's host) and :ToolMcp's status shows; once the browser came back, its tools are
// listed; logout forgets the tokens. Skipped without Node.js.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

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

// A call that waits for the server's sign-in says so in its output (its chat block shows it)
// and runs once the browser came back; a sign-in that times out fails it with the reason.
class McpServersSignInCall : public McpServersSignIn {
 protected:
  struct Seen {
    std::string output;
    std::optional<jobs::JobInfo> finished;
  };
  void submit(const std::string& server) {
    core::RemoteTool remote;
    remote.server = server;
    remote.tool = "whoami";
    auto function = servers_->call(remote, nlohmann::json::object());
    ASSERT_TRUE(function) << function.error();
    jobs::JobSpec spec;
    spec.tool = server + "__whoami";
    spec.stream = *function;
    spec.timeout_ms = 30'000;
    jobs::JobEvents events;
    events.output = [this](const jobs::JobInfo&, jobs::Stream, std::string_view text) {
      seen_.output += text;
    };
    events.finished = [this](const jobs::JobInfo& info) { seen_.finished = info; };
    engine_->submit(std::move(spec), std::move(events));
  }
  Seen seen_;
};

TEST_F(McpServersSignInCall, SaysItWaitsForTheSignInThenRuns) {
  auto* fake = testing::OAuthFakeServer::get();
  if (!fake) GTEST_SKIP() << "needs Node.js";
  ServerConfig config;
  config.name = "fake";
  config.url = fake->mcp_url("call-waits");
  config.oauth.timeout_ms = 20'000;
  std::string asked_url;
  Servers::Options options;
  options.sign_in = [&](const std::string&, const std::string& url, const std::string&) {
    asked_url = url;
  };
  make({config}, options);
  submit("fake");
  const std::string waiting =
      "waiting for sign-in to fake at 127.0.0.1 (in your browser; the URL is in :ToolMcp)\n";
  ASSERT_TRUE(run([&] { return seen_.output.find(waiting) != std::string::npos; }))
      << seen_.output;
  EXPECT_FALSE(seen_.finished.has_value());
  std::string browser = TOOLHOST_FIXTURES "/../mcp_client/fetch_browser.sh '" + asked_url + "'";
  ASSERT_EQ(std::system(browser.c_str()), 0);
  ASSERT_TRUE(run([&] { return seen_.finished.has_value(); }, 20'000)) << seen_.output;
  EXPECT_EQ(seen_.finished->status, core::Status::Succeeded) << seen_.finished->error;
  EXPECT_NE(seen_.output.find("signed in to fake\n"), std::string::npos) << seen_.output;
  EXPECT_EQ(seen_.output.find("access-"), std::string::npos) << seen_.output;
}

TEST_F(McpServersSignInCall, AJoiningCallIsToldOfTheSignInAlreadyWaiting) {
  auto* fake = testing::OAuthFakeServer::get();
  if (!fake) GTEST_SKIP() << "needs Node.js";
  ServerConfig config;
  config.name = "fake";
  config.url = fake->mcp_url("call-joins");
  config.oauth.timeout_ms = 20'000;
  std::string asked_url;
  Servers::Options options;
  options.sign_in = [&](const std::string&, const std::string& url, const std::string&) {
    asked_url = url;
  };
  make({config}, options);  // it starts at once and waits for the sign-in
  ASSERT_TRUE(run([&] { return !asked_url.empty(); })) << status().dump();
  submit("fake");
  ASSERT_TRUE(run([&] {
    return seen_.output.find("waiting for sign-in to fake at 127.0.0.1") != std::string::npos;
  })) << seen_.output;
}

TEST_F(McpServersSignInCall, ASignInThatTimesOutFailsTheCallWithTheReason) {
  auto* fake = testing::OAuthFakeServer::get();
  if (!fake) GTEST_SKIP() << "needs Node.js";
  fake->configure("call-times-out", {{"authorize", "hang"}});
  ServerConfig config;
  config.name = "fake";
  config.url = fake->mcp_url("call-times-out");
  config.oauth.timeout_ms = 300;  // nobody follows the URL
  make({config});
  submit("fake");
  ASSERT_TRUE(run([&] { return seen_.finished.has_value(); }, 20'000)) << seen_.output;
  EXPECT_EQ(seen_.finished->status, core::Status::Failed);
  EXPECT_NE(seen_.output.find("waiting for sign-in to fake"), std::string::npos) << seen_.output;
  EXPECT_NE(seen_.finished->error.find("no redirect came back from the browser in time"),
            std::string::npos)
      << seen_.finished->error;
  EXPECT_EQ(seen_.output.find("signed in to fake"), std::string::npos) << seen_.output;
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
