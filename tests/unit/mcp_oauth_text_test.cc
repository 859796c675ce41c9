// The pure parts of MCP sign-in: PKCE, the encodings, a Bearer challenge's parameters, where
// metadata is looked for (and in which order), whether metadata names this server, the scope
// sets, the `oauth` settings' errors, and what a token endpoint's answer (hostile ones too) gives.
#include <gtest/gtest.h>

#include <set>

#include "mcp/oauth_config.h"
#include "mcp/oauth_discovery.h"
#include "mcp/oauth_pkce.h"
#include "mcp/oauth_http.h"
#include "mcp/oauth_text.h"
#include "mcp/oauth_token.h"
#include "mcp/server_config.h"

namespace toolhost::mcp {
namespace {

TEST(McpOAuthText, PkceChallengeIsBase64urlOfSha256) {
  // Computed independently: base64.urlsafe_b64encode(hashlib.sha256(v).digest()), unpadded.
  EXPECT_EQ(pkce_s256_challenge("dBjftJeZ4CVP-mJ92IUXnxk9nbwlpKBZyKOZ2-WDQ3c"),
            "hiC2TzIGMZ-Y0hxuUOQoatlIZBYQ1btW52qoj4llZK8");
}

TEST(McpOAuthText, RandomValuesAreLongUrlSafeAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    std::string value = random_urlsafe(32);
    EXPECT_EQ(value.size(), 43u);  // 32 bytes, base64url without padding: a valid verifier
    EXPECT_EQ(value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      "0123456789-_"),
              std::string::npos);
    seen.insert(value);
  }
  EXPECT_EQ(seen.size(), 50u);
}

TEST(McpOAuthText, EncodingsRoundTrip) {
  EXPECT_EQ(base64_encode("a:b"), "YTpi");
  EXPECT_EQ(base64_encode("ab"), "YWI=");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(form_encode({{"a b", "c&d=e"}, {"x", "/"}}), "a%20b=c%26d%3De&x=%2F");
  auto fields = form_decode("code=a%2Fb&state=x+y&empty=&bare");
  EXPECT_EQ(fields["code"], "a/b");
  EXPECT_EQ(fields["state"], "x y");
  EXPECT_EQ(fields["empty"], "");
  EXPECT_TRUE(fields.count("bare"));
  EXPECT_EQ(with_query("https://a.example/authorize?x=1", {{"s", "1 2"}}),
            "https://a.example/authorize?x=1&s=1%202");
}

TEST(McpOAuthText, BearerChallengeParameters) {
  auto params = bearer_challenge(
      R"(Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x.example/m?a=1,2", error_description="say \"no\"")");
  EXPECT_EQ(params["error"], "insufficient_scope");
  EXPECT_EQ(params["scope"], "a b");
  EXPECT_EQ(params["resource_metadata"], "https://x.example/m?a=1,2");
  EXPECT_EQ(params["error_description"], "say \"no\"");
  EXPECT_EQ(bearer_challenge("bearer realm=x")["realm"], "x");
  EXPECT_TRUE(bearer_challenge("Basic realm=\"x\"").empty());
  // Garbage gives what it gives, without reading past the end.
  EXPECT_EQ(bearer_challenge("Bearer ===,,\"").count("resource_metadata"), 0u);
  EXPECT_EQ(bearer_challenge("Bearer scope=\"unterminated")["scope"], "unterminated");
  EXPECT_TRUE(bearer_challenge("").empty());
}

TEST(McpOAuthText, ProtectedResourceMetadataOrder) {
  EXPECT_EQ(protected_resource_metadata_urls("https://s.example/v1/mcp",
                                             "https://s.example/custom.json"),
            (std::vector<std::string>{"https://s.example/custom.json",
                                      "https://s.example/.well-known/oauth-protected-resource/v1/mcp",
                                      "https://s.example/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(protected_resource_metadata_urls("https://s.example", "not a url"),
            (std::vector<std::string>{"https://s.example/.well-known/oauth-protected-resource"}));
}

TEST(McpOAuthText, AuthorizationServerMetadataOrder) {
  EXPECT_EQ(authorization_server_metadata_urls("https://a.example/tenant1/"),
            (std::vector<std::string>{
                "https://a.example/.well-known/oauth-authorization-server/tenant1",
                "https://a.example/.well-known/openid-configuration/tenant1",
                "https://a.example/tenant1/.well-known/openid-configuration"}));
  EXPECT_EQ(authorization_server_metadata_urls("https://a.example"),
            (std::vector<std::string>{"https://a.example/.well-known/oauth-authorization-server",
                                      "https://a.example/.well-known/openid-configuration"}));
  EXPECT_TRUE(authorization_server_metadata_urls("file:///etc/passwd").empty());
}

TEST(McpOAuthText, ResourceMustNameThisServer) {
  EXPECT_TRUE(resource_matches("https://s.example/mcp", "https://s.example/mcp"));
  EXPECT_TRUE(resource_matches("https://S.example/mcp/", "https://s.example"));
  EXPECT_TRUE(resource_matches("https://s.example/v1/mcp", "https://s.example/v1"));
  EXPECT_FALSE(resource_matches("https://s.example/mcp", "https://evil.example.com/mcp"));
  EXPECT_FALSE(resource_matches("https://s.example/mcp", "http://s.example/mcp"));
  EXPECT_FALSE(resource_matches("https://s.example/mcpx", "https://s.example/mcp/other"));
  EXPECT_FALSE(resource_matches("https://s.example/v10", "https://s.example/v1"));
  EXPECT_FALSE(resource_matches("https://s.example/mcp", ""));
}

TEST(McpOAuthText, ScopeSets) {
  EXPECT_EQ(scope_union("a b", "b c"), "a b c");
  EXPECT_EQ(scope_union("", "x"), "x");
  EXPECT_TRUE(scope_covers("a b c", "c a"));
  EXPECT_FALSE(scope_covers("a", "a b"));
  EXPECT_TRUE(scope_covers("", ""));
}

TEST(McpOAuthText, OAuthSettingsAreChecked) {
  auto parse = [](const char* spec) {
    return servers_from_json(nlohmann::json::parse(spec), [](const std::string& name) {
             return name == "SECRET" ? std::optional<std::string>("s3") : std::nullopt;
           })
        .servers.at(0);
  };
  ServerConfig good = parse(
      R"({"servers":{"x":{"url":"https://s.example/mcp","oauth":{"client_id":"id","client_secret":"${SECRET}","timeout_ms":5}}}})");
  EXPECT_EQ(good.error, "");
  EXPECT_EQ(good.oauth.client_secret, "s3");
  EXPECT_EQ(good.oauth.timeout_ms, 5u);
  EXPECT_EQ(parse(R"({"servers":{"x":{"url":"https://s","oauth":7}}})").error,
            "oauth: expected a table");
  EXPECT_NE(parse(R"({"servers":{"x":{"url":"https://s","oauth":{"clientid":"a"}}}})")
                .error.find("oauth.clientid: unknown"),
            std::string::npos);
  EXPECT_NE(parse(R"({"servers":{"x":{"url":"https://s","oauth":{"grant":"client_credentials"}}}})")
                .error.find("needs oauth.client_id"),
            std::string::npos);
  EXPECT_NE(parse(R"({"servers":{"x":{"url":"https://s","oauth":{"client_metadata_url":"http://x"}}}})")
                .error.find("https://"),
            std::string::npos);
}

}  // namespace
}  // namespace toolhost::mcp

namespace toolhost::mcp {
namespace {

OAuthHttpResponse answered(long status, const std::string& body) {
  OAuthHttpResponse response;
  response.status = status;
  response.body = body;
  return response;
}

TEST(McpOAuthTokenAnswer, ABearerTokenIsTaken) {
  TokenAnswer answer = token_answer_from(answered(
      200, R"({"access_token":"a","token_type":"bearer","refresh_token":"r","scope":"x y","expires_in":60})"));
  EXPECT_EQ(answer.error, "");
  EXPECT_EQ(answer.access_token, "a");
  EXPECT_EQ(answer.refresh_token, "r");
  EXPECT_EQ(answer.scope, "x y");
  EXPECT_EQ(answer.expires_in, 60);
}

TEST(McpOAuthTokenAnswer, HostileAnswersAreRefusedWithoutTheirSecrets) {
  for (const char* body : {"", "not json", "[]", R"({"access_token":7,"token_type":"Bearer"})",
                           R"({"access_token":"secret-a","token_type":"mac"})",
                           R"({"access_token":"secret-a"})"}) {
    TokenAnswer answer = token_answer_from(answered(200, body));
    EXPECT_EQ(answer.error, "the token endpoint's answer holds no Bearer access_token") << body;
    EXPECT_EQ(answer.access_token, "") << body;
  }
  TokenAnswer huge = token_answer_from(answered(
      200, R"({"access_token":"a","token_type":"Bearer","expires_in":1e308})"));
  EXPECT_EQ(huge.expires_in, 365 * 24 * 3600);
  TokenAnswer negative = token_answer_from(answered(
      200, R"({"access_token":"a","token_type":"Bearer","expires_in":-5})"));
  EXPECT_EQ(negative.expires_in, 0);
  TokenAnswer refused = token_answer_from(answered(
      400, R"({"error":"invalid_grant","error_description":"revoked","access_token":"secret-b"})"));
  EXPECT_TRUE(refused.invalid_grant);
  EXPECT_EQ(refused.error, "the token endpoint answered HTTP 400 (invalid_grant: revoked)");
  EXPECT_EQ(refused.error.find("secret"), std::string::npos);
}

}  // namespace
}  // namespace toolhost::mcp
