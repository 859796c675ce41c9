#include "mcp/oauth_discovery.h"

#include <nlohmann/json.hpp>

#include "mcp/oauth_http.h"
#include "mcp/oauth_text.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

std::string discovery_trimmed(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

std::string discovery_text(const Json& json, const char* key) {
  auto it = json.find(key);
  return it != json.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> discovery_list(const Json& json, const char* key) {
  std::vector<std::string> out;
  auto it = json.find(key);
  if (it == json.end() || !it->is_array()) return out;
  for (const Json& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string discovery_joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// The first URL of `urls` that answers a JSON object.
Json discovery_first_json(const std::vector<std::string>& urls, std::string& tried) {
  for (const std::string& url : urls) {
    OAuthHttpResponse response = oauth_get(url);
    Json json = response.json();
    if (response.ok() && !json.is_discarded()) return json;
    tried += (tried.empty() ? "" : ", ") + url + " (" + response.describe() + ")";
  }
  return Json(Json::value_t::discarded);
}

OAuthServerMetadata discovery_metadata(const Json& json) {
  OAuthServerMetadata m;
  m.issuer = discovery_text(json, "issuer");
  m.authorization_endpoint = discovery_text(json, "authorization_endpoint");
  m.token_endpoint = discovery_text(json, "token_endpoint");
  m.registration_endpoint = discovery_text(json, "registration_endpoint");
  m.scopes_supported = discovery_list(json, "scopes_supported");
  m.token_endpoint_auth_methods = discovery_list(json, "token_endpoint_auth_methods_supported");
  m.token_endpoint_auth_signing_algs =
      discovery_list(json, "token_endpoint_auth_signing_alg_values_supported");
  auto cimd = json.find("client_id_metadata_document_supported");
  m.client_id_metadata_documents = cimd != json.end() && cimd->is_boolean() && cimd->get<bool>();
  return m;
}

// Every endpoint is http(s): a metadata document cannot send the browser or a secret elsewhere.
std::string discovery_check_endpoints(const OAuthServerMetadata& m) {
  for (const std::string* url : {&m.authorization_endpoint, &m.token_endpoint}) {
    if (!split_url(*url).ok) return "its metadata names no usable authorization and token endpoints";
  }
  if (!m.registration_endpoint.empty() && !split_url(m.registration_endpoint).ok) {
    return "its registration_endpoint is not an http(s) URL";
  }
  return "";
}

}  // namespace

OAuthServerMetadata server_metadata_from(const std::string& body, std::string& error) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    error = "the authorization server's metadata is not a JSON object";
    return {};
  }
  OAuthServerMetadata metadata = discovery_metadata(json);
  error = discovery_check_endpoints(metadata);
  return metadata;
}

std::vector<std::string> protected_resource_metadata_urls(const std::string& server_url,
                                                          const std::string& from_challenge) {
  std::vector<std::string> urls;
  if (split_url(from_challenge).ok) urls.push_back(from_challenge);
  UrlParts server = split_url(server_url);
  if (!server.ok) return urls;
  std::string path = discovery_trimmed(server.path);
  if (!path.empty()) urls.push_back(server.origin() + "/.well-known/oauth-protected-resource" + path);
  urls.push_back(server.origin() + "/.well-known/oauth-protected-resource");
  return urls;
}

std::vector<std::string> authorization_server_metadata_urls(const std::string& issuer) {
  UrlParts parts = split_url(issuer);
  if (!parts.ok) return {};
  std::string path = discovery_trimmed(parts.path);
  std::string origin = parts.origin();
  if (path.empty()) {
    return {origin + "/.well-known/oauth-authorization-server",
            origin + "/.well-known/openid-configuration"};
  }
  return {origin + "/.well-known/oauth-authorization-server" + path,
          origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

bool resource_matches(const std::string& server_url, const std::string& resource) {
  UrlParts server = split_url(server_url);
  UrlParts named = split_url(resource);
  if (!server.ok || !named.ok || server.origin() != named.origin()) return false;
  std::string prefix = discovery_trimmed(named.path);
  std::string path = discovery_trimmed(server.path);
  return path.compare(0, prefix.size(), prefix) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '/');
}

OAuthDiscovery discover_oauth(const std::string& server_url,
                              const std::map<std::string, std::string>& challenge) {
  OAuthDiscovery out;
  UrlParts server = split_url(server_url);
  if (!server.ok) {
    out.error = "the server's url is not an http(s) URL";
    return out;
  }
  auto param = [&](const char* name) {
    auto it = challenge.find(name);
    return it == challenge.end() ? std::string() : it->second;
  };
  std::string tried;
  Json resource = discovery_first_json(protected_resource_metadata_urls(server_url, param("resource_metadata")), tried);
  std::string issuer;
  if (resource.is_discarded()) {
    out.legacy = true;
    issuer = server.origin();
    out.resource = server_url.substr(0, server_url.find('#'));
  } else {
    out.resource = discovery_text(resource, "resource");
    if (out.resource.empty()) out.resource = server_url;
    if (!resource_matches(server_url, out.resource)) {
      out.error = "the server's protected-resource metadata names the resource " +
                  out.resource + ", not " + server_url + ": refusing to sign in for it";
      return out;
    }
    std::vector<std::string> servers = discovery_list(resource, "authorization_servers");
    if (servers.empty() || !split_url(servers.front()).ok) {
      out.error = "the server's protected-resource metadata names no authorization server";
      return out;
    }
    issuer = servers.front();
    out.scope = discovery_joined(discovery_list(resource, "scopes_supported"));
  }
  if (!param("scope").empty()) out.scope = param("scope");
  std::string as_tried;
  Json metadata = discovery_first_json(authorization_server_metadata_urls(issuer), as_tried);
  if (metadata.is_discarded()) {
    if (!out.legacy) {
      out.error = "no metadata for the authorization server " + issuer + " (tried " + as_tried + ")";
      return out;
    }
    // 2025-03-26's defaults, at the server's origin.
    out.server.issuer = issuer;
    out.server.authorization_endpoint = issuer + "/authorize";
    out.server.token_endpoint = issuer + "/token";
    out.server.registration_endpoint = issuer + "/register";
    return out;
  }
  out.server = discovery_metadata(metadata);
  // RFC 8414 3.3: the metadata is the issuer's own (a 2025-03-26 server's may name another).
  if (!out.legacy && discovery_trimmed(out.server.issuer) != discovery_trimmed(issuer)) {
    out.error = "the authorization server's metadata names the issuer " + out.server.issuer +
                ", not " + issuer + ": refusing to sign in with it";
    return out;
  }
  if (out.server.issuer.empty()) out.server.issuer = issuer;
  out.error = discovery_check_endpoints(out.server);
  return out;
}

}  // namespace toolhost::mcp
