#pragma once
// A server's `oauth` table (SPEC 13.3, doc/toolhost.txt "Servers that need sign-in"): how
// toolhost identifies itself to the server's authorization server. Everything is optional: with
// nothing, a server that asks for sign-in gets a dynamic client registration (RFC 7591).
// Pure.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace toolhost::mcp {

struct OAuthConfig {
  // A client registered with the authorization server beforehand (`client_secret` only for a
  // confidential client).
  std::string client_id;
  std::string client_secret;
  // The URL of a client ID metadata document describing toolhost, used as the client_id where
  // the authorization server supports them (client_id_metadata_document_supported).
  std::string client_metadata_url;
  // A private key (PEM) that signs the client's assertion at the token endpoint instead of a
  // secret (private_key_jwt, RFC 7523): the text itself, or the absolute path of a file holding
  // it; at most one of the two. Read when a sign-in needs it (oauth_key.h), never logged.
  std::string private_key;
  std::string private_key_file;
  // "ES256" or "RS256"; "": the key's own (ES256 for an EC P-256 key, RS256 for an RSA key).
  std::string algorithm;
  // "authorization_code" (a person signs in in a browser) or "client_credentials" (a machine
  // signs in with `client_id` and `client_secret` or `private_key`).
  std::string grant = "authorization_code";
  // Scopes asked for when neither the server's challenge nor its metadata name any.
  std::string scope;
  // How long a sign-in waits for the browser's redirect.
  uint64_t timeout_ms = 300'000;

  bool has_private_key() const { return !private_key.empty() || !private_key_file.empty(); }
};

// `oauth` of a server's spec into `out`; the problem, or "". `expand` takes `${VAR}`s.
std::string read_oauth_config(
    const nlohmann::json& spec,
    const std::function<std::optional<std::string>(const std::string&, std::string&)>& expand,
    OAuthConfig& out);

}  // namespace toolhost::mcp
