#include "mcp/oauth_token.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "mcp/oauth_http.h"
#include "mcp/oauth_jwt.h"
#include "mcp/oauth_text.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

bool token_offers(const std::vector<std::string>& supported, const char* method) {
  return std::find(supported.begin(), supported.end(), method) != supported.end();
}

std::string token_text(const Json& json, const char* key) {
  auto it = json.find(key);
  return it != json.end() && it->is_string() ? it->get<std::string>() : "";
}

bool token_is_bearer(const std::string& type) {
  std::string lower = type;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "bearer";
}

}  // namespace

std::string choose_token_auth_method(const std::vector<std::string>& supported, bool has_secret,
                                     bool has_key) {
  if (has_key && (supported.empty() || token_offers(supported, "private_key_jwt"))) {
    return "private_key_jwt";
  }
  if (has_key && !has_secret) return "";
  if (!has_secret) return "none";
  if (supported.empty() || token_offers(supported, "client_secret_basic")) return "client_secret_basic";
  if (token_offers(supported, "client_secret_post")) return "client_secret_post";
  return "none";
}

TokenAnswer request_token(const std::string& token_endpoint, FormFields fields,
                          const OAuthClient& client) {
  OAuthHeaders headers;
  if (client.auth_method == "client_secret_basic") {
    // RFC 6749 2.3.1: each part form-encoded before base64.
    headers.emplace_back("Authorization", "Basic " + base64_encode(percent_encode(client.id) + ":" +
                                                                   percent_encode(client.secret)));
  } else {
    fields.emplace_back("client_id", client.id);
    if (client.auth_method == "client_secret_post") {
      fields.emplace_back("client_secret", client.secret);
    } else if (client.auth_method == "private_key_jwt") {
      // RFC 7523 2.2; client_id too, which RFC 6749 allows and some servers look up first.
      fields.emplace_back("client_assertion_type", kJwtBearerAssertionType);
      fields.emplace_back("client_assertion", client.assertion);
    }
  }
  OAuthHttpResponse response = oauth_post(token_endpoint, form_encode(fields),
                                          "application/x-www-form-urlencoded", headers);
  return token_answer_from(response);
}

TokenAnswer token_answer_from(const OAuthHttpResponse& response) {
  TokenAnswer answer;
  Json json = response.json();
  if (!response.ok()) {
    answer.error = "the token endpoint answered " + response.describe();
    answer.invalid_grant = !json.is_discarded() && token_text(json, "error") == "invalid_grant";
    return answer;
  }
  if (json.is_discarded() || token_text(json, "access_token").empty() ||
      !token_is_bearer(token_text(json, "token_type"))) {
    answer.error = "the token endpoint's answer holds no Bearer access_token";
    return answer;
  }
  answer.access_token = token_text(json, "access_token");
  answer.refresh_token = token_text(json, "refresh_token");
  answer.scope = token_text(json, "scope");
  if (auto it = json.find("expires_in"); it != json.end() && it->is_number()) {
    // Clamped: a year is plenty, and a huge double would not fit the integer.
    constexpr double kYear = 365.0 * 24 * 3600;
    double seconds = it->get<double>();
    if (seconds > 0) answer.expires_in = static_cast<int64_t>(seconds < kYear ? seconds : kYear);
  }
  return answer;
}

OAuthClient register_client(const std::string& registration_endpoint,
                            const std::string& redirect_uri,
                            const std::vector<std::string>& supported_auth_methods,
                            std::string& error) {
  // A native client keeps no secret well: a public client where the server allows one.
  std::string method = supported_auth_methods.empty() || token_offers(supported_auth_methods, "none")
                           ? "none"
                       : token_offers(supported_auth_methods, "client_secret_basic")
                           ? "client_secret_basic"
                           : "client_secret_post";
  Json request = {{"client_name", "toolhost"},
                  {"redirect_uris", {redirect_uri}},
                  {"grant_types", {"authorization_code", "refresh_token"}},
                  {"response_types", {"code"}},
                  {"token_endpoint_auth_method", method}};
  OAuthHttpResponse response =
      oauth_post(registration_endpoint, request.dump(), "application/json");
  Json json = response.json();
  OAuthClient client;
  if (!response.ok() || json.is_discarded() || token_text(json, "client_id").empty()) {
    error = "the dynamic client registration failed: " +
            (response.ok() ? std::string("no client_id in the answer") : response.describe());
    return client;
  }
  client.id = token_text(json, "client_id");
  client.secret = token_text(json, "client_secret");
  client.auth_method = token_text(json, "token_endpoint_auth_method");
  if (client.auth_method.empty()) client.auth_method = client.secret.empty() ? "none" : method;
  if (client.auth_method != "none" && client.secret.empty()) client.auth_method = "none";
  return client;
}

}  // namespace toolhost::mcp
