#pragma once
// The sign-in's HTTP requests (metadata, registration, tokens): blocking libcurl transfers, run
// only on the sign-in's worker thread (oauth_authorizer.h), never on the host's loop. No
// redirect is followed (a token must not travel to another origin), bodies are capped, and a
// transfer gives up after 30 s.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace toolhost::mcp {

struct OAuthHttpResponse {
  long status = 0;    // 0: no response (see `error`)
  std::string error;  // the transfer failed: why, in words
  std::string body;
  std::string www_authenticate;  // the challenge of a 401 or 403
  // The body as a JSON object; discarded (is_discarded()) when it is not one.
  nlohmann::json json() const;
  bool ok() const { return status >= 200 && status < 300; }
  // "HTTP 400 (invalid_grant: the code expired)" or the transfer's error, for messages; never
  // the body's other fields (they may hold tokens).
  std::string describe() const;
};

using OAuthHeaders = std::vector<std::pair<std::string, std::string>>;

OAuthHttpResponse oauth_get(const std::string& url, const OAuthHeaders& headers = {});
// `content_type` names the body's (application/x-www-form-urlencoded, application/json).
OAuthHttpResponse oauth_post(const std::string& url, const std::string& body,
                             const std::string& content_type, const OAuthHeaders& headers = {});

}  // namespace toolhost::mcp
