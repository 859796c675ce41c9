#include "mcp/oauth_config.h"

namespace toolhost::mcp {

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
             ": unknown (expected client_id, client_secret, client_metadata_url, grant, scope, "
             "timeout_ms)";
    }
    if (!value.is_string()) return "oauth." + key + ": expected a string";
    std::string why;
    auto expanded = expand(value.get<std::string>(), why);
    if (!expanded) return "oauth." + key + ": " + why;
    *slot = *expanded;
  }
  if (out.grant != "authorization_code" && out.grant != "client_credentials") {
    return "oauth.grant: expected \"authorization_code\" or \"client_credentials\"";
  }
  if (out.grant == "client_credentials" && out.client_id.empty()) {
    return "oauth.grant: \"client_credentials\" needs oauth.client_id (and client_secret)";
  }
  if (!out.client_metadata_url.empty() && out.client_metadata_url.rfind("https://", 0) != 0) {
    return "oauth.client_metadata_url: expected an https:// URL";
  }
  return "";
}

}  // namespace toolhost::mcp
