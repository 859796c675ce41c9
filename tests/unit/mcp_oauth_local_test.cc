// MCP sign-in's local parts: the loopback redirect listener (the right state gives the code, a
// wrong one ends the sign-in refused, silence times out) and the record file (mode 0600 in a
// 0700 directory, a name that cannot leave it, removed by logout).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "mcp/oauth_redirect.h"
#include "mcp/oauth_store.h"

namespace toolhost::mcp {
namespace {

// The "browser" fetches the URL it is given, as a person's browser follows the redirect.
constexpr const char* kCurlBrowser = "curl --silent --max-time 10 --output /dev/null";

TEST(McpOAuthRedirect, TheRightStateGivesTheCode) {
  LoopbackRedirect redirect;
  std::string error;
  ASSERT_TRUE(redirect.listen(error)) << error;
  EXPECT_EQ(redirect.redirect_uri().rfind("http://127.0.0.1:", 0), 0u);
  RedirectOutcome outcome =
      redirect.wait("s1", 10'000, kCurlBrowser, redirect.redirect_uri() + "?code=c%2F1&state=s1&iss=x");
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(outcome.code, "c/1");
  EXPECT_EQ(outcome.iss, "x");
}

TEST(McpOAuthRedirect, AWrongStateIsRefused) {
  LoopbackRedirect redirect;
  std::string error;
  ASSERT_TRUE(redirect.listen(error)) << error;
  RedirectOutcome outcome =
      redirect.wait("s1", 10'000, kCurlBrowser, redirect.redirect_uri() + "?code=c&state=s2");
  EXPECT_EQ(outcome.code, "");
  EXPECT_NE(outcome.error.find("another sign-in's state"), std::string::npos) << outcome.error;
}

TEST(McpOAuthRedirect, TheServersRefusalIsSaid) {
  LoopbackRedirect redirect;
  std::string error;
  ASSERT_TRUE(redirect.listen(error)) << error;
  RedirectOutcome outcome = redirect.wait(
      "s", 10'000, kCurlBrowser,
      redirect.redirect_uri() + "?error=access_denied&error_description=no+thanks&state=s");
  EXPECT_EQ(outcome.error, "the authorization server refused: access_denied (no thanks)");
}

TEST(McpOAuthRedirect, NoRedirectTimesOut) {
  LoopbackRedirect redirect;
  std::string error;
  ASSERT_TRUE(redirect.listen(error)) << error;
  RedirectOutcome outcome = redirect.wait("s", 50, "", "");
  EXPECT_EQ(outcome.error, "no redirect came back from the browser in time");
}

class McpOAuthStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/toolhost-oauth-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string dir_;
};

TEST_F(McpOAuthStore, RecordIsPrivateAndRoundTrips) {
  OAuthRecord record;
  record.server_url = "https://s.example/mcp";
  record.issuer = "https://a.example";
  record.client_id = "c";
  record.access_token = "secret-access";
  record.refresh_token = "secret-refresh";
  record.scope = "mcp";
  record.expires_at = 1234;
  std::string error;
  ASSERT_TRUE(save_oauth_record(dir_, "docs", record, error)) << error;
  struct stat file {};
  ASSERT_EQ(stat(oauth_record_path(dir_, "docs").c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);
  struct stat folder {};
  ASSERT_EQ(stat((dir_ + "/mcp-oauth").c_str(), &folder), 0);
  EXPECT_EQ(folder.st_mode & 0777, 0700u);
  auto loaded = load_oauth_record(dir_, "docs", error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->access_token, "secret-access");
  EXPECT_EQ(loaded->refresh_token, "secret-refresh");
  EXPECT_EQ(loaded->issuer, "https://a.example");
  EXPECT_EQ(loaded->expires_at, 1234);
  // Saved again: still 0600, no temporary file left behind.
  ASSERT_TRUE(save_oauth_record(dir_, "docs", record, error)) << error;
  EXPECT_EQ(std::system(("test $(ls -A '" + dir_ + "/mcp-oauth' | wc -l) = 1").c_str()), 0);
}

TEST_F(McpOAuthStore, ANameCannotLeaveTheDirectory) {
  std::string path = oauth_record_path(dir_, "../../etc/x");
  EXPECT_EQ(path, dir_ + "/mcp-oauth/%2E%2E%2F%2E%2E%2Fetc%2Fx.json");
}

TEST_F(McpOAuthStore, LogoutRemovesTheRecord) {
  std::string error;
  ASSERT_TRUE(save_oauth_record(dir_, "docs", OAuthRecord{}, error)) << error;
  EXPECT_TRUE(remove_oauth_record(dir_, "docs", error));
  EXPECT_FALSE(remove_oauth_record(dir_, "docs", error));
  EXPECT_EQ(error, "");
  EXPECT_FALSE(load_oauth_record(dir_, "docs", error));
  EXPECT_EQ(error, "");
}

TEST_F(McpOAuthStore, AnUnreadableRecordIsAnError) {
  std::string error;
  ASSERT_TRUE(save_oauth_record(dir_, "docs", OAuthRecord{}, error)) << error;
  ASSERT_EQ(std::system(("echo garbage > '" + oauth_record_path(dir_, "docs") + "'").c_str()), 0);
  EXPECT_FALSE(load_oauth_record(dir_, "docs", error));
  EXPECT_NE(error.find("is not a sign-in record"), std::string::npos) << error;
}

}  // namespace
}  // namespace toolhost::mcp
