#pragma once
// The small encodings OAuth's messages are made of: percent-encoding (forms, queries), base64
// (Basic credentials) and base64url (PKCE), URLs taken apart and put together, and the
// parameters of a `WWW-Authenticate: Bearer` challenge (RFC 6750, RFC 9728). Pure.

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace toolhost::mcp {

std::string percent_encode(const std::string& text);
std::string percent_decode(const std::string& text);
// `a=1&b=2`, each side percent-encoded.
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);
// `a=1&b=2` (a query or a form body) into its fields; the last of a repeated name wins.
std::map<std::string, std::string> form_decode(const std::string& text);
std::string base64_encode(const std::string& bytes);
std::string base64url_encode(const std::string& bytes);  // no padding

// An http(s) URL's parts; `ok` false when it is not one. The host is kept as written (with
// its port), lower-cased; the path is "" or starts with '/'.
struct UrlParts {
  bool ok = false;
  std::string scheme;
  std::string authority;
  std::string path;
  std::string query;
  std::string origin() const { return scheme + "://" + authority; }
  std::string host() const;  // without the port
};
UrlParts split_url(const std::string& url);
// `url` with `fields` added to its query.
std::string with_query(const std::string& url,
                       const std::vector<std::pair<std::string, std::string>>& fields);

// The auth-params of a Bearer challenge (names lower-cased): `resource_metadata`, `scope`,
// `error`, ... A challenge of another scheme, or garbage, gives none.
std::map<std::string, std::string> bearer_challenge(const std::string& header);

// `a b c` into its words, and back; sets are kept in first-seen order.
std::vector<std::string> scope_words(const std::string& scope);
std::string scope_union(const std::string& a, const std::string& b);
// Every word of `wanted` is in `held`.
bool scope_covers(const std::string& held, const std::string& wanted);

}  // namespace toolhost::mcp
