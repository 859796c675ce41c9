#pragma once
// Finding where to sign in to an MCP server that refused a request (MCP authorization,
// 2025-11-25 and 2025-03-26): its protected-resource metadata (RFC 9728) from the challenge's
// `resource_metadata` or the well-known paths, the authorization server it names, and that
// server's metadata (RFC 8414, then OpenID discovery). A server with no protected-resource
// metadata is a 2025-03-26 one: its origin is the authorization server, with the default
// endpoints when it publishes no metadata either. Blocking (oauth_http.h).

#include <map>
#include <string>
#include <vector>

namespace toolhost::mcp {

struct OAuthServerMetadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;  // "": no dynamic registration
  std::vector<std::string> scopes_supported;
  std::vector<std::string> token_endpoint_auth_methods;  // empty: client_secret_basic
  // The algorithms it takes client assertions signed with (private_key_jwt); empty: unnamed.
  std::vector<std::string> token_endpoint_auth_signing_algs;
  bool client_id_metadata_documents = false;
};

struct OAuthDiscovery {
  std::string resource;  // the RFC 8707 indicator sent with every request
  std::string scope;     // to ask for: the challenge's, else the resource's scopes_supported
  OAuthServerMetadata server;
  bool legacy = false;  // 2025-03-26: no protected-resource metadata
  std::string error;    // discovery failed (then nothing else is set)
};

// Where the protected-resource metadata may be, in the order they are tried.
std::vector<std::string> protected_resource_metadata_urls(const std::string& server_url,
                                                          const std::string& from_challenge);
// Where an authorization server's metadata may be, in the order they are tried.
std::vector<std::string> authorization_server_metadata_urls(const std::string& issuer);
// The metadata's `resource` names this server: same origin, and the server's path within it.
bool resource_matches(const std::string& server_url, const std::string& resource);

// An authorization server's metadata document, read; `error` says why it cannot be used (an
// endpoint that is not an http(s) URL). Pure: the fuzzer's way in.
OAuthServerMetadata server_metadata_from(const std::string& body, std::string& error);

// `challenge`: bearer_challenge() of the refusal's WWW-Authenticate (may be empty).
OAuthDiscovery discover_oauth(const std::string& server_url,
                              const std::map<std::string, std::string>& challenge);

}  // namespace toolhost::mcp
