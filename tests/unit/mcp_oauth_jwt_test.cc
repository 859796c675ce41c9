// private_key_jwt (RFC 7523, SEP-1046): the assertion's header and claims, base64url, JOSE's
// ECDSA form against a known vector, signatures by keys made and checked with libcrypto, and
// the keys and settings refused, each with a message that never quotes the key.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/crypto_api.h"
#include "mcp/oauth_config.h"
#include "mcp/oauth_jwt.h"
#include "mcp/oauth_key.h"
#include "mcp/oauth_token.h"
#include "mcp/server_config.h"
#include "oauth_test_keys.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;
using testing::test_base64url_decode;
using testing::test_jwt_parts;
using testing::test_signature_verifies;

std::string jwt_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// The key's body (its base64 lines) must never come back in a message.
void expect_no_key_in(const std::string& message, const std::string& pem) {
  std::string body_line = pem.substr(pem.find('\n') + 1, 40);
  EXPECT_EQ(message.find(body_line), std::string::npos) << message;
}

TEST(McpOAuthJwt, SigningInputIsTheHeaderAndTheClaimsInBase64url) {
  AssertionClaims claims;
  claims.client_id = "machine";
  claims.audience = "https://auth.example/tenant";
  claims.jwt_id = "j-1";
  claims.issued_at = 1700000000;
  std::string input = jwt_signing_input("ES256", claims);
  auto parts = test_jwt_parts(input);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(input.find_first_of("+/="), std::string::npos) << input;
  EXPECT_EQ(Json::parse(test_base64url_decode(parts[0])),
            Json::parse(R"({"alg":"ES256","typ":"JWT"})"));
  Json body = Json::parse(test_base64url_decode(parts[1]));
  EXPECT_EQ(body,
            Json::parse(R"({"iss":"machine","sub":"machine","aud":"https://auth.example/tenant",
                                  "jti":"j-1","iat":1700000000,"exp":1700000300})"));
  // The same claims, the same bytes.
  EXPECT_EQ(input, jwt_signing_input("ES256", claims));
}

TEST(McpOAuthJwt, TheCompactFormAppendsTheSignatureInBase64url) {
  AssertionClaims claims;
  claims.client_id = "c";
  std::string error;
  std::string jwt = signed_client_assertion(
      "RS256", claims, [](const std::string&, std::string&) { return std::string("\xfb\xff", 2); },
      error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(jwt, jwt_signing_input("RS256", claims) + ".-_8");
  std::string refused = signed_client_assertion(
      "RS256", claims,
      [](const std::string&, std::string& why) {
        why = "no";
        return std::string();
      },
      error);
  EXPECT_EQ(refused, "");
  EXPECT_EQ(error, "no");
}

// RFC 6979 A.2.5: P-256, SHA-256, message "sample"; both numbers have their top bit set, so DER
// writes each with a leading zero byte.
TEST(McpOAuthJwt, DerEcdsaSignatureBecomesJoseRAndS) {
  std::string r = "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716";
  std::string s = "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8";
  std::string der = jwt_hex("3046022100" + r + "022100" + s);
  EXPECT_EQ(ecdsa_der_to_jose(der, 32), jwt_hex(r + s));
  // A short number is left-padded: an s of 31 bytes (DER drops leading zeros).
  std::string short_s = "4B" + s.substr(4);
  std::string shorter = jwt_hex("3044022100" + r + "021f" + short_s);
  EXPECT_EQ(ecdsa_der_to_jose(shorter, 32), jwt_hex(r + "00" + short_s));
}

TEST(McpOAuthJwt, MalformedDerIsRefused) {
  std::string r = std::string(64, '1');
  std::string s = std::string(64, '2');
  EXPECT_EQ(ecdsa_der_to_jose("", 32), "");
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3044"
                                      "0220" +
                                      r + "0220" + s + "00"),
                              32),
            "");  // trailing
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3144"
                                      "0220" +
                                      r + "0220" + s),
                              32),
            "");  // not a SEQUENCE
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3044"
                                      "0320" +
                                      r + "0220" + s),
                              32),
            "");  // not INTEGERs
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3045"
                                      "0220" +
                                      r + "0220" + s),
                              32),
            "");  // length past the end
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3046"
                                      "0222"
                                      "0101" +
                                      r + "0220" + s),
                              32),
            "");  // r too big
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3044"
                                      "0220"
                                      "81" +
                                      r.substr(2) + "0220" + s),
                              32),
            "");  // negative
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("308144"
                                      "0220" +
                                      r + "0220" + s),
                              32),
            "");  // long form under 128
  EXPECT_EQ(ecdsa_der_to_jose(jwt_hex("3044"
                                      "0220" +
                                      r + "0220" + s),
                              32),
            jwt_hex(r + s));
}

TEST(McpOAuthKey, Es256SignatureVerifiesWithLibcrypto) {
  auto key = testing::test_ec_key();
  ASSERT_TRUE(key);
  std::string error;
  auto signer = OAuthKey::from_pem(testing::test_key_pem(key.get()), "", error);
  ASSERT_TRUE(signer) << error;
  EXPECT_EQ(signer->algorithm(), "ES256");
  std::string signature = signer->sign("header.claims", error);
  EXPECT_EQ(signature.size(), 64u) << error;
  EXPECT_TRUE(test_signature_verifies(key.get(), "header.claims", signature));
  EXPECT_FALSE(test_signature_verifies(key.get(), "header.claimz", signature));
  // OpenSSL's traditional form reads the same.
  auto traditional =
      OAuthKey::from_pem(testing::test_key_traditional_pem(key.get()), "ES256", error);
  ASSERT_TRUE(traditional) << error;
  EXPECT_TRUE(test_signature_verifies(key.get(), "x", traditional->sign("x", error)));
}

TEST(McpOAuthKey, Rs256SignatureVerifiesWithLibcrypto) {
  auto key = testing::test_rsa_key(2048);
  ASSERT_TRUE(key);
  std::string error;
  auto signer = OAuthKey::from_pem(testing::test_key_pem(key.get()), "RS256", error);
  ASSERT_TRUE(signer) << error;
  EXPECT_EQ(signer->algorithm(), "RS256");
  std::string signature = signer->sign("header.claims", error);
  EXPECT_EQ(signature.size(), 256u) << error;
  EXPECT_TRUE(test_signature_verifies(key.get(), "header.claims", signature));
}

TEST(McpOAuthKey, WhatCannotSignIsRefusedWithoutQuotingTheKey) {
  std::string error;
  auto refused = [&](const std::string& pem, const std::string& algorithm) {
    error.clear();
    EXPECT_FALSE(OAuthKey::from_pem(pem, algorithm, error)) << algorithm;
    expect_no_key_in(error, pem);
    return error;
  };
  std::string garbage =
      "-----BEGIN PRIVATE KEY-----\nTm90IGEga2V5IGF0IGFsbCwganVzdCB0ZXh0Cg==\n"
      "-----END PRIVATE KEY-----\n";
  EXPECT_NE(refused(garbage, "").find("is not a PEM private key"), std::string::npos) << error;
  auto p384 = testing::test_ec_key("P-384");
  EXPECT_NE(refused(testing::test_key_pem(p384.get()), "").find("ES256 needs one on P-256"),
            std::string::npos)
      << error;
  auto small = testing::test_rsa_key(1024);
  EXPECT_NE(refused(testing::test_key_pem(small.get()), "").find("1024-bit RSA key"),
            std::string::npos)
      << error;
  auto ec = testing::test_ec_key();
  EXPECT_NE(refused(testing::test_key_pem(ec.get()), "RS256").find("signs ES256, not"),
            std::string::npos)
      << error;
  EXPECT_NE(refused(testing::test_key_pem(ec.get()), "HS256").find("ES256, RS256"),
            std::string::npos)
      << error;
  auto ed = testing::test_ed25519_key();
  EXPECT_NE(refused(testing::test_key_pem(ed.get()), "").find("neither an EC P-256"),
            std::string::npos)
      << error;
  // Encrypted: refused at once, no passphrase asked for (a terminal prompt would hang the host).
  EXPECT_NE(refused(testing::test_key_pem(ec.get(), "secret"), "").find("encrypted"),
            std::string::npos)
      << error;
}

class McpOAuthKeyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/toolhost-oauth-key-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0600);
    return path;
  }
  std::string dir_;
};

TEST_F(McpOAuthKeyFile, AnAssertionFromTheKeyFileNamesTheClientAndTheAudience) {
  auto key = testing::test_ec_key();
  OAuthConfig config;
  config.client_id = "machine";
  config.private_key_file = write("key.pem", testing::test_key_pem(key.get()));
  std::string error;
  std::string jwt = make_client_assertion(config, "machine", "https://auth.example", {}, error);
  ASSERT_NE(jwt, "") << error;
  auto parts = test_jwt_parts(jwt);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Json::parse(test_base64url_decode(parts[0]))["alg"], "ES256");
  Json claims = Json::parse(test_base64url_decode(parts[1]));
  EXPECT_EQ(claims["iss"], "machine");
  EXPECT_EQ(claims["sub"], "machine");
  EXPECT_EQ(claims["aud"], "https://auth.example");
  EXPECT_EQ(claims["exp"].get<int64_t>() - claims["iat"].get<int64_t>(), 300);
  EXPECT_LE(std::abs(claims["iat"].get<int64_t>() - static_cast<int64_t>(time(nullptr))), 5);
  EXPECT_GE(claims["jti"].get<std::string>().size(), 16u);
  EXPECT_TRUE(test_signature_verifies(key.get(), parts[0] + "." + parts[1],
                                      test_base64url_decode(parts[2])));
  // Each assertion is new: another jti.
  std::string again = make_client_assertion(config, "machine", "https://auth.example", {}, error);
  EXPECT_NE(Json::parse(test_base64url_decode(test_jwt_parts(again)[1]))["jti"], claims["jti"]);
}

TEST_F(McpOAuthKeyFile, TheKeyTextSignsTheSameWay) {
  auto key = testing::test_rsa_key(2048);
  OAuthConfig config;
  config.client_id = "machine";
  config.private_key = testing::test_key_pem(key.get());
  std::string error;
  std::string jwt =
      make_client_assertion(config, "machine", "https://a", {"RS256", "ES256"}, error);
  ASSERT_NE(jwt, "") << error;
  auto parts = test_jwt_parts(jwt);
  EXPECT_EQ(Json::parse(test_base64url_decode(parts[0]))["alg"], "RS256");
  EXPECT_TRUE(test_signature_verifies(key.get(), parts[0] + "." + parts[1],
                                      test_base64url_decode(parts[2])));
}

TEST_F(McpOAuthKeyFile, ProblemsNameTheSettingAndTheFileNeverTheKey) {
  auto key = testing::test_ec_key();
  std::string pem = testing::test_key_pem(key.get());
  OAuthConfig config;
  config.client_id = "machine";
  std::string error;
  config.private_key_file = dir_ + "/missing.pem";
  EXPECT_EQ(make_client_assertion(config, "machine", "https://a", {}, error), "");
  EXPECT_EQ(error, "oauth.private_key_file: cannot read " + dir_ +
                       "/missing.pem: No such file or directory");
  config.private_key_file = write("big.pem", std::string(70 * 1024, 'x'));
  EXPECT_EQ(make_client_assertion(config, "machine", "https://a", {}, error), "");
  EXPECT_NE(error.find("over 64 KiB"), std::string::npos) << error;
  config.private_key_file = write("key.pem", pem);
  EXPECT_EQ(make_client_assertion(config, "machine", "https://a", {"RS256"}, error), "");
  EXPECT_EQ(error,
            "the authorization server accepts client assertions signed with RS256, not "
            "with ES256 (oauth.private_key_file (" +
                config.private_key_file + "))");
  config.private_key_file.clear();
  config.private_key = pem;
  config.algorithm = "RS256";
  EXPECT_EQ(make_client_assertion(config, "machine", "https://a", {}, error), "");
  EXPECT_NE(error.find("oauth.private_key is an EC key"), std::string::npos) << error;
  expect_no_key_in(error, pem);
}

#ifdef TOOLHOST_CRYPTO_DLOPEN
TEST(McpOAuthKey, AMissingLibcryptoIsSaidWithWhatToInstall) {
  CryptoApi table{};
  std::string error = open_crypto_library({"libcrypto-toolhost-missing.so.3"}, table);
  EXPECT_NE(error.find("cannot load libcrypto ("), std::string::npos) << error;
  EXPECT_NE(error.find("install OpenSSL 3 (Debian: libssl3)"), std::string::npos) << error;
  // A library without the functions (libc here) is named as lacking them.
  error = open_crypto_library({"libc.so.6"}, table);
  EXPECT_NE(error.find("the libcrypto found lacks BIO_new_mem_buf"), std::string::npos) << error;
  EXPECT_EQ(open_crypto_library({"libcrypto.so.3"}, table), "");
}
#endif

TEST(McpOAuthKey, TheTokenEndpointMethodFollowsTheKeyTheSecretAndTheServer) {
  using Methods = std::vector<std::string>;
  EXPECT_EQ(choose_token_auth_method({}, false, true), "private_key_jwt");
  EXPECT_EQ(choose_token_auth_method(Methods{"private_key_jwt"}, true, true), "private_key_jwt");
  EXPECT_EQ(choose_token_auth_method(Methods{"client_secret_post", "private_key_jwt"}, false, true),
            "private_key_jwt");
  // The server does not take the key: the secret where there is one, else nothing fits.
  EXPECT_EQ(choose_token_auth_method(Methods{"client_secret_basic"}, true, true),
            "client_secret_basic");
  EXPECT_EQ(choose_token_auth_method(Methods{"client_secret_basic"}, false, true), "");
  EXPECT_EQ(choose_token_auth_method({}, true, false), "client_secret_basic");
  EXPECT_EQ(choose_token_auth_method(Methods{"private_key_jwt"}, false, false), "none");
}

TEST(McpOAuthKey, KeySettingsAreChecked) {
  auto parse = [](const std::string& oauth) {
    Json spec = {
        {"servers", {{"x", {{"url", "https://s.example/mcp"}, {"oauth", Json::parse(oauth)}}}}}};
    return servers_from_json(
               spec,
               [](const std::string& name) {
                 if (name == "KEY") {
                   return std::optional<std::string>(
                       "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
                 }
                 return name == "HOME" ? std::optional<std::string>("/home/me") : std::nullopt;
               })
        .servers.at(0);
  };
  ServerConfig good =
      parse(R"({"client_id":"m","grant":"client_credentials","private_key":"${KEY}"})");
  EXPECT_EQ(good.error, "");
  EXPECT_EQ(good.oauth.private_key.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_TRUE(good.oauth.has_private_key());
  ServerConfig file =
      parse(R"({"client_id":"m","private_key_file":"${env:HOME}/k.pem","algorithm":"RS256"})");
  EXPECT_EQ(file.error, "");
  EXPECT_EQ(file.oauth.private_key_file, "/home/me/k.pem");
  EXPECT_EQ(file.oauth.algorithm, "RS256");

  EXPECT_EQ(parse(R"({"client_id":"m","private_key":"${KEY}","private_key_file":"/k"})").error,
            "oauth.private_key and oauth.private_key_file: set one of them, not both");
  std::string not_pem = parse(R"({"client_id":"m","private_key":"MHcCAQEEIAbcdef"})").error;
  EXPECT_NE(not_pem.find("oauth.private_key: expected the key's PEM text"), std::string::npos)
      << not_pem;
  EXPECT_EQ(not_pem.find("MHcCAQEEIAbcdef"), std::string::npos) << not_pem;
  EXPECT_NE(parse(R"({"client_id":"m","private_key_file":"k.pem"})")
                .error.find("expected an absolute path"),
            std::string::npos);
  EXPECT_NE(parse(R"({"client_id":"m","private_key_file":"/k","algorithm":"HS256"})")
                .error.find("oauth.algorithm: expected \"ES256\""),
            std::string::npos);
  EXPECT_NE(parse(R"({"client_id":"m","algorithm":"ES256"})").error.find("neither is set"),
            std::string::npos);
  EXPECT_NE(parse(R"({"private_key_file":"/k"})").error.find("needs oauth.client_id"),
            std::string::npos);
  EXPECT_NE(parse(R"({"client_id":"m","private_key_file":7})")
                .error.find("oauth.private_key_file: expected a string"),
            std::string::npos);
  EXPECT_NE(
      parse(R"({"client_id":"m","privatekey":"x"})").error.find("private_key, private_key_file"),
      std::string::npos);
}

}  // namespace
}  // namespace toolhost::mcp
