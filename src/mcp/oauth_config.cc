#include "mcp/oauth_config.h"

namespace toolhost::mcp {
namespace {

// The private_key_jwt settings hang together; the key's text is never quoted back.
std::string check_private_key(const OAuthConfig& out) {
  if (!out.private_key.empty() && !out.private_key_file.empty()) {
    return "oauth.private_key and oauth.private_key_file: set one of them, not both";
  }
  if (!out.private_key.empty() && out.private_key.find("-----BEGIN ") == std::string::npos) {
    return "oauth.private_key: expected the key's PEM text (\"-----BEGIN PRIVATE KEY-----\" ...); "
           "for a file use oauth.private_key_file";
  }
  if (!out.private_key_file.empty() && out.private_key_file.front() != '/') {
    return "oauth.private_key_file: expected an absolute path (\"${env:HOME}/...\" expands)";
  }
  if (!out.algorithm.empty() && out.algorithm != "ES256" && out.algorithm != "RS256") {
    return "oauth.algorithm: expected \"ES256\" (an EC P-256 key) or \"RS256\" (an RSA key)";
  }
  if (!out.algorithm.empty() && !out.has_private_key()) {
    return "oauth.algorithm: signs with oauth.private_key or oauth.private_key_file, and neither "
           "is set";
  }
  if (out.has_private_key() && out.client_id.empty()) {
    return "oauth.private_key: needs oauth.client_id (the client the key was registered for)";
  }
  return "";
}

}  // namespace

std::string read_oauth_config(
    const nlohmann::json& spec,
    const std::function<std::optional<std::string>(const std::string&, std::string&)>& expand,
    OAuthConfig& out) {
  auto it = spec.find("oauth");
  if (it == spec.end() || it->is_null()) return "";
  if (!it->is_object()) return "oauth: expected a table";
  for (const auto& [key, value] : it->items()) {
    std::string* slot = key == "client_id"             ? &out.client_id
                        : key == "client_secret"       ? &out.client_secret
                        : key == "client_metadata_url" ? &out.client_metadata_url
                        : key == "grant"               ? &out.grant
                        : key == "scope"               ? &out.scope
                        : key == "private_key"         ? &out.private_key
                        : key == "private_key_file"    ? &out.private_key_file
                        : key == "algorithm"           ? &out.algorithm
                                                       : nullptr;
    if (key == "timeout_ms") {
      if (!value.is_number_unsigned() || value.get<uint64_t>() == 0) {
        return "oauth.timeout_ms: expected a positive number of milliseconds";
      }
      out.timeout_ms = value.get<uint64_t>();
      continue;
    }
    if (!slot) {
      return "oauth." + key +
             ": unknown (expected client_id, client_secret, private_key, private_key_file, "
             "algorithm, client_metadata_url, grant, scope, timeout_ms)";
    }
    if (!value.is_string()) return "oauth." + key + ": expected a string";
    std::string why;
    auto expanded = expand(value.get<std::string>(), why);
    if (!expanded) return "oauth." + key + ": " + why;
    *slot = *expanded;
  }
  if (std::string why = check_private_key(out); !why.empty()) return why;
  if (out.grant != "authorization_code" && out.grant != "client_credentials") {
    return "oauth.grant: expected \"authorization_code\" or \"client_credentials\"";
  }
  if (out.grant == "client_credentials" && out.client_id.empty()) {
    return "oauth.grant: \"client_credentials\" needs oauth.client_id (and client_secret or "
           "private_key)";
  }
  if (!out.client_metadata_url.empty() && out.client_metadata_url.rfind("https://", 0) != 0) {
    return "oauth.client_metadata_url: expected an https:// URL";
  }
  return "";
}

}  // namespace toolhost::mcp
