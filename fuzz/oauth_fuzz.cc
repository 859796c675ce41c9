// Fuzzes what an MCP sign-in reads from servers it does not control: an authorization server's
// metadata, a token endpoint's answer, a WWW-Authenticate challenge, and the query of the
// browser's redirect. Byte 0 picks which (mod 4), byte 1 is the token answer's status class; the
// rest is the text. Checked, besides not crashing:
//   - metadata that is accepted names http(s) authorization and token endpoints;
//   - a token answer is a token or an error, never both; an error never repeats the body's
//     access_token or refresh_token; expires_in is never negative;
//   - a challenge's parameter names are lower case;
//   - a redirect query's decoding never yields more fields than '&'-separated parts.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/oauth_discovery.h"
#include "mcp/oauth_http.h"
#include "mcp/oauth_text.h"
#include "mcp/oauth_token.h"

namespace {

using namespace toolhost;

void expect(bool ok, const char* rule) {
  if (ok) return;
  std::fprintf(stderr, "oauth_fuzz: broken: %s\n", rule);
  std::abort();
}

std::string field_of(const std::string& body, const char* key) {
  auto json = nlohmann::json::parse(body, nullptr, false);
  if (!json.is_object() || !json.contains(key) || !json[key].is_string()) return "";
  return json[key].get<std::string>();
}

void metadata(const std::string& text) {
  std::string error;
  mcp::OAuthServerMetadata read = mcp::server_metadata_from(text, error);
  if (!error.empty()) return;
  expect(mcp::split_url(read.authorization_endpoint).ok, "accepted metadata: authorization URL");
  expect(mcp::split_url(read.token_endpoint).ok, "accepted metadata: token URL");
}

void token(const std::string& text, uint8_t status_class) {
  mcp::OAuthHttpResponse response;
  static const long kStatuses[] = {200, 201, 400, 401, 500, 0};
  response.status = kStatuses[status_class % 6];
  response.body = text;
  if (response.status == 0) response.error = "no answer";
  mcp::TokenAnswer answer = mcp::token_answer_from(response);
  expect(answer.error.empty() != answer.access_token.empty(), "a token or an error");
  expect(answer.expires_in >= 0, "expires_in not negative");
  for (const char* secret : {"access_token", "refresh_token"}) {
    std::string value = field_of(text, secret);
    if (value.size() >= 4 && !answer.error.empty()) {
      // The error quotes error and error_description only: a secret may appear there only if the
      // server put it there itself.
      std::string words = field_of(text, "error") + field_of(text, "error_description");
      expect(answer.error.find(value) == std::string::npos ||
                 words.find(value) != std::string::npos,
             "an error never repeats a token");
    }
  }
}

void challenge(const std::string& text) {
  for (const auto& [name, value] : mcp::bearer_challenge(text)) {
    expect(std::none_of(name.begin(), name.end(), [](unsigned char c) { return std::isupper(c); }),
           "parameter names are lower case");
    (void)value;
  }
}

void redirect_query(const std::string& text) {
  size_t parts = static_cast<size_t>(std::count(text.begin(), text.end(), '&')) + 1;
  expect(mcp::form_decode(text).size() <= parts, "no more fields than parts");
  (void)mcp::split_url(text);
  (void)mcp::percent_decode(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
  switch (data[0] % 4) {
    case 0: metadata(text); break;
    case 1: token(text, data[1]); break;
    case 2: challenge(text); break;
    default: redirect_query(text); break;
  }
  return 0;
}
