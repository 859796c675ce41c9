// MCP sign-in against a local server that needs it (tests/fixtures/oauth_fake_server.mjs):
// the whole flow through a headless browser, a silent refresh, a revoked refresh token that
// signs in again, the transport's queued requests failing with the reason when the sign-in
// times out, a token that never reaches another origin, and private_key_jwt's signed client
// assertions (client credentials, the code, a refresh). Skipped without Node.js.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/http_transport.h"
#include "jsonrpc/message.h"
#include "mcp/oauth_authorizer.h"
#include "mcp/oauth_flow.h"
#include "mcp/oauth_text.h"
#include "oauth_fake_server.h"
#include "oauth_test_keys.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

const std::string kBrowser = TOOLHOST_FIXTURES "/../mcp_client/fetch_browser.sh";

class McpOAuthFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = testing::OAuthFakeServer::get();
    if (!server_) GTEST_SKIP() << "needs Node.js";
    char pattern[] = "/tmp/toolhost-oauth-flow-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    tenant_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  OAuthFlowInput input(long status = 401) const {
    OAuthFlowInput in;
    in.server = "fake";
    in.server_url = server_->mcp_url(tenant_);
    in.state_dir = dir_;
    in.status = status;
    in.browser = kBrowser;
    return in;
  }
  // The endpoints the tenant saw, in order ("authorize", "token", ...).
  std::vector<std::string> endpoints() const {
    std::vector<std::string> out;
    Json log = server_->seen(tenant_);  // held: a range-for over a temporary's member dangles
    for (const Json& seen : log["seen"]) out.push_back(seen["what"]);
    return out;
  }
  Json last(const std::string& what) const {
    Json found;
    Json log = server_->seen(tenant_);
    for (const Json& seen : log["seen"]) {
      if (seen["what"] == what) found = seen;
    }
    return found;
  }
  testing::OAuthFakeServer* server_ = nullptr;
  std::string dir_;
  std::string tenant_;
};

TEST_F(McpOAuthFlow, SignsInThroughTheBrowserWithPkceAndTheResource) {
  std::string announced;
  OAuthFlowInput in = input();
  in.announce = [&](const std::string&, const std::string& host) { announced = host; };
  OAuthFlowResult result = run_oauth_flow(in);
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(announced, "127.0.0.1");
  EXPECT_EQ(result.record.access_token, "access-" + tenant_ + "-1");
  EXPECT_EQ(endpoints(), (std::vector<std::string>{"register", "authorize", "token"}));
  Json authorize = last("authorize")["query"];
  EXPECT_EQ(authorize["code_challenge_method"], "S256");
  EXPECT_EQ(authorize["resource"], server_->mcp_url(tenant_));
  EXPECT_EQ(authorize["scope"], "mcp offline_access");  // offline_access: the server offers it
  std::string token_request = last("token")["body"];
  EXPECT_NE(token_request.find("code_verifier="), std::string::npos);
  EXPECT_NE(token_request.find("resource=http%3A%2F%2F127.0.0.1"), std::string::npos);
  struct stat file {};
  ASSERT_EQ(stat(oauth_record_path(dir_, "fake").c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);
}

TEST_F(McpOAuthFlow, ARefusedTokenRefreshesWithoutTheBrowser) {
  ASSERT_EQ(run_oauth_flow(input()).error, "");
  OAuthFlowInput again = input();
  again.browser = "false";  // a browser now would fail the test: the redirect never comes
  again.config.timeout_ms = 2000;
  OAuthFlowResult result = run_oauth_flow(again);
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(result.record.access_token, "access-" + tenant_ + "-2");
  EXPECT_EQ(endpoints(), (std::vector<std::string>{"register", "authorize", "token", "token"}));
  EXPECT_NE(last("token")["body"].get<std::string>().find("grant_type=refresh_token"),
            std::string::npos);
}

TEST_F(McpOAuthFlow, ARevokedRefreshTokenSignsInAgain) {
  ASSERT_EQ(run_oauth_flow(input()).error, "");
  server_->configure(tenant_, {{"refresh", "revoked"}});
  OAuthFlowResult result = run_oauth_flow(input());
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(result.record.access_token, "access-" + tenant_ + "-2");
  // The registration is reused; the refused refresh is followed by the browser's sign-in.
  EXPECT_EQ(endpoints(), (std::vector<std::string>{"register", "authorize", "token", "token",
                                                   "authorize", "token"}));
}

// A transport to the tenant's MCP endpoint, signing in with an OAuthAuthorizer.
struct SignedInTransport {
  SignedInTransport(const std::string& url, const std::string& dir, const std::string& browser,
                    uint64_t timeout_ms) {
    OAuthAuthorizer::Options auth;
    auth.server = "fake";
    auth.server_url = url;
    auth.state_dir = dir;
    auth.browser = browser;
    auth.config.timeout_ms = timeout_ms;
    auth.on_sign_in = [this](const std::string& u, const std::string&) {
      sign_in_url = u;
      ++sign_ins;
    };
    authorizer = OAuthAuthorizer::create(loop.get(), auth);
    jsonrpc::HttpTransport::Options options;
    options.url = url;
    options.authorizer = authorizer;
    std::string error;
    transport = jsonrpc::HttpTransport::create(loop.get(), std::move(options), error);
    EXPECT_TRUE(transport) << error;
    jsonrpc::Transport::Handlers handlers;
    handlers.message = [this](std::string_view text) { messages.push_back(Json::parse(text)); };
    EXPECT_TRUE(transport->start(std::move(handlers), error)) << error;
  }
  ~SignedInTransport() {
    transport.reset();
    authorizer.reset();
    loop.run_until([&] { return loop.get()->active_reqs.count == 0; }, 30'000);
  }
  void send(int id) {
    transport->send(jsonrpc::encode(jsonrpc::make_request(id, "tools/list", Json::object())));
  }
  bool wait_for(size_t count) {
    return loop.run_until([&] { return messages.size() >= count; }, 30'000);
  }
  testing::TestLoop loop;
  std::shared_ptr<OAuthAuthorizer> authorizer;
  std::unique_ptr<jsonrpc::HttpTransport> transport;
  std::vector<Json> messages;
  std::string sign_in_url;
  int sign_ins = 0;
};

TEST_F(McpOAuthFlow, RequestsWaitForTheSignInThenGoThrough) {
  SignedInTransport client(server_->mcp_url(tenant_), dir_, kBrowser, 10'000);
  client.send(1);
  client.send(2);
  ASSERT_TRUE(client.wait_for(2));
  for (const Json& message : client.messages) {
    EXPECT_EQ(message["result"]["tools"][0]["name"], "whoami") << message.dump();
  }
  EXPECT_NE(client.sign_in_url.find("code_challenge="), std::string::npos);
  // One sign-in for both.
  int authorizations = 0;
  for (const std::string& what : endpoints()) authorizations += what == "authorize";
  EXPECT_EQ(authorizations, 1);
}

TEST_F(McpOAuthFlow, ASignInThatTimesOutFailsTheQueuedRequestsWithTheReason) {
  server_->configure(tenant_, {{"authorize", "hang"}});
  SignedInTransport client(server_->mcp_url(tenant_), dir_, "", 300);  // nobody opens the URL
  client.send(1);
  client.send(2);
  ASSERT_TRUE(client.wait_for(2));
  for (const Json& message : client.messages) {
    std::string said = message["error"]["message"];
    EXPECT_NE(said.find("sign-in to fake failed: no redirect came back from the browser in time"),
              std::string::npos)
        << said;
  }
  EXPECT_FALSE(client.sign_in_url.empty());
  // A request refused right after (a handshake's discover probe) gets the same reason at once:
  // the user is asked once.
  client.send(3);
  ASSERT_TRUE(client.wait_for(3));
  EXPECT_NE(client.messages[2]["error"]["message"].get<std::string>().find("in time"),
            std::string::npos);
  EXPECT_EQ(client.sign_ins, 1);
}

TEST_F(McpOAuthFlow, TheTokenNeverReachesAnotherOrigin) {
  server_->configure(tenant_, {{"redirect_after_sign_in", true}});
  SignedInTransport client(server_->mcp_url(tenant_), dir_, kBrowser, 10'000);
  client.send(1);
  ASSERT_TRUE(client.wait_for(1));
  std::string said = client.messages[0]["error"]["message"];
  EXPECT_NE(said.find("307"), std::string::npos) << said;
  // The signed-in request went to the tenant (with the token), and nothing to the other origin.
  EXPECT_EQ(last("mcp")["authorization"], "Bearer access-" + tenant_ + "-1");
  Json log = server_->seen(tenant_);
  for (const Json& other : log["other"]) {
    EXPECT_EQ(other["authorization"], "") << other.dump();
  }
  EXPECT_TRUE(log["other"].empty());
  // Nor does the error say the token.
  EXPECT_EQ(said.find("access-"), std::string::npos) << said;
}

// The token request's client assertion, checked: its type, the claims (iss = sub = the client,
// aud = the issuer) and its signature by `key`; the claims, or null when something is off.
Json flow_checked_assertion(const std::string& body, EVP_PKEY* key, const std::string& issuer) {
  auto form = form_decode(body);
  EXPECT_EQ(form["client_assertion_type"],
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  EXPECT_EQ(form.count("client_secret"), 0u);
  auto parts = testing::test_jwt_parts(form["client_assertion"]);
  if (parts.size() != 3) return nullptr;
  Json claims = Json::parse(testing::test_base64url_decode(parts[1]), nullptr, false);
  EXPECT_EQ(claims["iss"], form["client_id"]);
  EXPECT_EQ(claims["sub"], form["client_id"]);
  EXPECT_EQ(claims["aud"], issuer);
  EXPECT_TRUE(testing::test_signature_verifies(key, parts[0] + "." + parts[1],
                                               testing::test_base64url_decode(parts[2])));
  return claims;
}

TEST_F(McpOAuthFlow, AMachineSignsInWithAPrivateKeyJwt) {
  server_->configure(tenant_,
                     {{"token_auth_methods", {"private_key_jwt"}}, {"signing_algs", {"ES256"}}});
  auto key = testing::test_ec_key();
  std::string pem = testing::test_key_pem(key.get());
  std::string path = dir_ + "/machine.pem";
  FILE* file = fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  fputs(pem.c_str(), file);
  fclose(file);
  OAuthFlowInput in = input();
  in.config.grant = "client_credentials";
  in.config.client_id = "machine";
  in.config.private_key_file = path;
  OAuthFlowResult result = run_oauth_flow(in);
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(result.record.client_auth_method, "private_key_jwt");
  EXPECT_EQ(endpoints(), (std::vector<std::string>{"token"}));  // no browser, no registration
  std::string body = last("token")["body"];
  EXPECT_EQ(form_decode(body)["grant_type"], "client_credentials");
  EXPECT_EQ(form_decode(body)["client_id"], "machine");
  Json first = flow_checked_assertion(body, key.get(), server_->origin() + "/t/" + tenant_);
  EXPECT_EQ(first["exp"].get<int64_t>() - first["iat"].get<int64_t>(), 300);

  // The next sign-in refreshes, with an assertion of its own (a new jti).
  OAuthFlowResult again = run_oauth_flow(in);
  ASSERT_EQ(again.error, "");
  std::string refresh = last("token")["body"];
  EXPECT_EQ(form_decode(refresh)["grant_type"], "refresh_token");
  Json second = flow_checked_assertion(refresh, key.get(), server_->origin() + "/t/" + tenant_);
  EXPECT_NE(second["jti"], first["jti"]);
  // The record holds the method, never the key.
  std::string record;
  if (FILE* saved = fopen(oauth_record_path(dir_, "fake").c_str(), "r")) {
    char buffer[4096];
    size_t got = fread(buffer, 1, sizeof buffer, saved);
    record.assign(buffer, got);
    fclose(saved);
  }
  EXPECT_NE(record.find("private_key_jwt"), std::string::npos) << record;
  EXPECT_EQ(record.find("PRIVATE KEY"), std::string::npos) << record;
}

TEST_F(McpOAuthFlow, TheBrowserSignInSendsTheAssertionWithTheCode) {
  server_->configure(tenant_, {{"token_auth_methods", {"private_key_jwt", "none"}}});
  auto key = testing::test_rsa_key(2048);
  OAuthFlowInput in = input();
  in.config.client_id = "registered";
  in.config.private_key = testing::test_key_pem(key.get());
  OAuthFlowResult result = run_oauth_flow(in);
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(endpoints(), (std::vector<std::string>{"authorize", "token"}));
  std::string body = last("token")["body"];
  EXPECT_EQ(form_decode(body)["grant_type"], "authorization_code");
  flow_checked_assertion(body, key.get(), server_->origin() + "/t/" + tenant_);
}

TEST_F(McpOAuthFlow, AServerThatTakesNoKeyIsSaidBeforeAnyTokenRequest) {
  server_->configure(tenant_, {{"token_auth_methods", {"client_secret_basic"}}});
  auto key = testing::test_ec_key();
  OAuthFlowInput in = input();
  in.config.grant = "client_credentials";
  in.config.client_id = "machine";
  in.config.private_key = testing::test_key_pem(key.get());
  OAuthFlowResult result = run_oauth_flow(in);
  EXPECT_NE(result.error.find("takes no private_key_jwt client assertion at its token endpoint "
                              "(it lists client_secret_basic)"),
            std::string::npos)
      << result.error;
  EXPECT_EQ(result.error.find("PRIVATE KEY"), std::string::npos) << result.error;
  EXPECT_TRUE(endpoints().empty());

  // One that names its algorithms, without the key's.
  server_->configure(tenant_,
                     {{"token_auth_methods", {"private_key_jwt"}}, {"signing_algs", {"RS256"}}});
  result = run_oauth_flow(in);
  EXPECT_NE(result.error.find("accepts client assertions signed with RS256, not with ES256"),
            std::string::npos)
      << result.error;
  EXPECT_TRUE(endpoints().empty());
}

}  // namespace
}  // namespace toolhost::mcp
