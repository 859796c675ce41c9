#pragma once
// Requests to the authorization server's token and registration endpoints (OAuth 2.1, RFC
// 7591): the client authenticating as the metadata allows (client_secret_basic,
// client_secret_post, private_key_jwt or none), the RFC 8707 `resource` on each. Blocking
// (oauth_http.h).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace toolhost::mcp {

struct OAuthClient {
  std::string id;
  std::string secret;
  std::string auth_method;  // client_secret_basic, client_secret_post, private_key_jwt, none
  // private_key_jwt: the signed assertion (oauth_key.h) this request sends; one per request.
  std::string assertion;
};

struct TokenAnswer {
  std::string error;  // empty: a token came (words for the user, no secret)
  bool invalid_grant = false;  // the code or refresh token was refused: sign in again
  std::string access_token;
  std::string refresh_token;
  std::string scope;
  int64_t expires_in = 0;
};

using FormFields = std::vector<std::pair<std::string, std::string>>;

// How a client authenticates at the token endpoint, given the methods it supports
// (`token_endpoint_auth_methods_supported`; empty means client_secret_basic, RFC 8414) and
// what it holds: a configured private key signs (private_key_jwt) where the server lists that
// method or lists none; else a secret goes as the server allows; else none. "" when a key is
// all the client holds and the server lists methods without private_key_jwt.
std::string choose_token_auth_method(const std::vector<std::string>& supported, bool has_secret,
                                     bool has_key);

// What a token endpoint's answer says (pure: the fuzzer's and the tests' way in). A refusal's
// words are its `error` and `error_description` only, never the body's other fields.
struct OAuthHttpResponse;
TokenAnswer token_answer_from(const OAuthHttpResponse& response);

// POSTs `fields` (grant_type and the grant's own) with the client's authentication.
TokenAnswer request_token(const std::string& token_endpoint, FormFields fields,
                          const OAuthClient& client);

// Dynamic client registration for a native client redirecting to `redirect_uri`.
OAuthClient register_client(const std::string& registration_endpoint,
                            const std::string& redirect_uri,
                            const std::vector<std::string>& supported_auth_methods,
                            std::string& error);

}  // namespace toolhost::mcp
