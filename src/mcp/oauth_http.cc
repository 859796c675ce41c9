#include "mcp/oauth_http.h"

#include <strings.h>

#include <cctype>

#include "jsonrpc/curl_api.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::curl;

constexpr size_t kMaxOAuthBody = 1 << 20;  // metadata and token answers are small
constexpr long kOAuthTimeoutMs = 30'000;

size_t oauth_collect_body(char* data, size_t size, size_t count, void* out) {
  auto* body = static_cast<std::string*>(out);
  if (body->size() + size * count > kMaxOAuthBody) return 0;  // aborts the transfer
  body->append(data, size * count);
  return size * count;
}

size_t oauth_collect_header(char* data, size_t size, size_t count, void* out) {
  std::string line(data, size * count);
  static const std::string kName = "www-authenticate:";
  if (line.size() > kName.size() && strncasecmp(line.c_str(), kName.c_str(), kName.size()) == 0) {
    std::string value = line.substr(kName.size());
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(0, 1);
    *static_cast<std::string*>(out) = value;
  }
  return size * count;
}

OAuthHttpResponse oauth_perform(const std::string& url, const std::string* body,
                          const std::string& content_type, const OAuthHeaders& headers) {
  OAuthHttpResponse response;
  if (!jsonrpc::load_curl(response.error)) return response;
  CURL* easy = curl().easy_init();
  if (!easy) {
    response.error = "libcurl cannot start a transfer";
    return response;
  }
  curl_slist* list = nullptr;
  list = curl().slist_append(list, "Accept: application/json");
  if (body) list = curl().slist_append(list, ("Content-Type: " + content_type).c_str());
  for (const auto& [name, value] : headers) {
    list = curl().slist_append(list, (name + ": " + value).c_str());
  }
  char error[CURL_ERROR_SIZE] = {0};
  curl().easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl().easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl().easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl().easy_setopt(easy, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl().easy_setopt(easy, CURLOPT_TIMEOUT_MS, kOAuthTimeoutMs);
  curl().easy_setopt(easy, CURLOPT_HTTPHEADER, list);
  curl().easy_setopt(easy, CURLOPT_WRITEFUNCTION, oauth_collect_body);
  curl().easy_setopt(easy, CURLOPT_WRITEDATA, &response.body);
  curl().easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  curl().easy_setopt(easy, CURLOPT_HEADERFUNCTION, oauth_collect_header);
  curl().easy_setopt(easy, CURLOPT_HEADERDATA, &response.www_authenticate);
  if (body) {
    curl().easy_setopt(easy, CURLOPT_POST, 1L);
    curl().easy_setopt(easy, CURLOPT_POSTFIELDS, body->c_str());
    curl().easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(body->size()));
  }
  CURLcode result = curl().easy_perform(easy);
  if (result == CURLE_OK) {
    curl().easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  } else {
    response.error = error[0] ? error : curl().easy_strerror(result);
    if (result == CURLE_WRITE_ERROR) response.error = "an answer over 1 MB";
  }
  curl().easy_cleanup(easy);
  curl().slist_free_all(list);
  return response;
}

}  // namespace

nlohmann::json OAuthHttpResponse::json() const {
  auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return nlohmann::json(nlohmann::json::value_t::discarded);
  return parsed;
}

std::string OAuthHttpResponse::describe() const {
  if (status == 0) return error;
  std::string out = "HTTP " + std::to_string(status);
  nlohmann::json answer = json();
  if (!answer.is_discarded() && answer.contains("error") && answer["error"].is_string()) {
    out += " (" + answer["error"].get<std::string>().substr(0, 100);
    if (answer.contains("error_description") && answer["error_description"].is_string()) {
      out += ": " + answer["error_description"].get<std::string>().substr(0, 200);
    }
    out += ")";
  }
  return out;
}

OAuthHttpResponse oauth_get(const std::string& url, const OAuthHeaders& headers) {
  return oauth_perform(url, nullptr, "", headers);
}

OAuthHttpResponse oauth_post(const std::string& url, const std::string& body,
                             const std::string& content_type, const OAuthHeaders& headers) {
  return oauth_perform(url, &body, content_type, headers);
}

}  // namespace toolhost::mcp
