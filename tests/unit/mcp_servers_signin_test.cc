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
  void SetUp() override {
    McpServersSignIn::SetUp();
    fake_ = testing::OAuthFakeServer::get();
    if (!fake_) GTEST_SKIP() << "needs Node.js";
  }
  // Server "fake" on the fake server's `tenant`: the URL its sign-in asks for goes to asked_url_.
  void make_fake(const std::string& tenant, uint64_t timeout_ms = 20'000) {
    ServerConfig config;
    config.name = "fake";
    config.url = fake_->mcp_url(tenant);
    config.oauth.timeout_ms = timeout_ms;
    Servers::Options options;
    options.sign_in = [this](const std::string&, const std::string& url, const std::string&) {
      asked_url_ = url;
    };
    make({config}, options);  // no cached tools: it starts at once, and is refused
  }
  void submit() {
    core::RemoteTool remote;
    remote.server = "fake";
    remote.tool = "whoami";
    auto function = servers_->call(remote, nlohmann::json::object());
    ASSERT_TRUE(function) << function.error();
    jobs::JobSpec spec;
    spec.tool = "fake__whoami";
    spec.stream = *function;
    spec.timeout_ms = 30'000;
    jobs::JobEvents events;
    events.output = [this](const jobs::JobInfo&, jobs::Stream, std::string_view text) {
      output_ += text;
    };
    events.finished = [this](const jobs::JobInfo& info) { finished_ = info; };
    engine_->submit(std::move(spec), std::move(events));
  }
  bool output_has(const std::string& text) const {
    return output_.find(text) != std::string::npos;
  }

  testing::OAuthFakeServer* fake_ = nullptr;
  std::string asked_url_;
  std::string output_;
  std::optional<jobs::JobInfo> finished_;
};

TEST_F(McpServersSignInCall, SaysItWaitsForTheSignInThenRuns) {
  make_fake("call-waits");
  submit();
  ASSERT_TRUE(run([&] {
    return output_has(
        "waiting for sign-in to fake at 127.0.0.1 (in your browser; the URL is in :ToolMcp)\n");
  })) << output_;
  EXPECT_FALSE(finished_.has_value());
  std::string browser = TOOLHOST_FIXTURES "/../mcp_client/fetch_browser.sh '" + asked_url_ + "'";
  ASSERT_EQ(std::system(browser.c_str()), 0);
  ASSERT_TRUE(run([&] { return finished_.has_value(); }, 20'000)) << output_;
  EXPECT_EQ(finished_->status, core::Status::Succeeded) << finished_->error;
  EXPECT_TRUE(output_has("signed in to fake\n")) << output_;
  EXPECT_FALSE(output_has("access-")) << output_;
}

TEST_F(McpServersSignInCall, AJoiningCallIsToldOfTheSignInAlreadyWaiting) {
  make_fake("call-joins");
  ASSERT_TRUE(run([&] { return !asked_url_.empty(); })) << status().dump();
  submit();
  ASSERT_TRUE(run([&] { return output_has("waiting for sign-in to fake at 127.0.0.1"); }))
      << output_;
}

TEST_F(McpServersSignInCall, ASignInThatTimesOutFailsTheCallWithTheReason) {
  fake_->configure("call-times-out", {{"authorize", "hang"}});
  make_fake("call-times-out", 300);  // nobody follows the URL
  submit();
  ASSERT_TRUE(run([&] { return finished_.has_value(); }, 20'000)) << output_;
  EXPECT_EQ(finished_->status, core::Status::Failed);
  EXPECT_TRUE(output_has("waiting for sign-in to fake")) << output_;
  EXPECT_NE(finished_->error.find("no redirect came back from the browser in time"),
            std::string::npos)
      << finished_->error;
  EXPECT_FALSE(output_has("signed in to fake")) << output_;
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
