#include "mcp/oauth_flow.h"

#include <algorithm>
#include <ctime>

#include <nlohmann/json.hpp>

#include "mcp/oauth_discovery.h"
#include "mcp/oauth_http.h"
#include "mcp/oauth_key.h"
#include "mcp/oauth_pkce.h"
#include "mcp/oauth_text.h"
#include "mcp/oauth_token.h"

namespace toolhost::mcp {
namespace {

bool flow_lists(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The tokens of `answer` into `record`, with what was asked for when the answer is silent.
OAuthFlowResult flow_keep(OAuthRecord record, const TokenAnswer& answer, const std::string& asked,
                     const OAuthFlowInput& input) {
  record.access_token = answer.access_token;
  if (!answer.refresh_token.empty()) record.refresh_token = answer.refresh_token;
  record.scope = answer.scope.empty() ? asked : answer.scope;
  record.expires_at = answer.expires_in > 0 ? std::time(nullptr) + answer.expires_in : 0;
  OAuthFlowResult result;
  // A configured secret stays in the configuration: the file holds only what was handed out.
  if (!input.config.client_id.empty()) record.client_secret.clear();
  result.record = record;
  // The token still works for this process when the file cannot be written: said, not fatal.
  if (!input.state_dir.empty()) {
    save_oauth_record(input.state_dir, input.server, record, result.warning);
  }
  return result;
}

// A sign-in asked for before any request (`mcp login`): the challenge an unauthenticated
// initialize gets, which may name the resource metadata's place.
std::string flow_probe_challenge(const std::string& server_url) {
  nlohmann::json initialize = {
      {"jsonrpc", "2.0"},
      {"id", 0},
      {"method", "initialize"},
      {"params",
       {{"protocolVersion", "2025-11-25"},
        {"capabilities", nlohmann::json::object()},
        {"clientInfo", {{"name", "toolhost"}, {"version", "sign-in"}}}}}};
  OAuthHttpResponse response = oauth_post(server_url, initialize.dump(), "application/json",
                                          {{"Accept", "application/json, text/event-stream"}});
  return response.www_authenticate;
}

OAuthFlowResult flow_failed(std::string why) {
  OAuthFlowResult result;
  result.error = std::move(why);
  return result;
}

// The client configured in `oauth`, authenticating as the authorization server allows with
// what the configuration holds (a private key, a secret, neither); no id with `error` set when
// they do not meet.
OAuthClient flow_configured_client(const OAuthFlowInput& input, const OAuthServerMetadata& server,
                                   std::string& error) {
  const OAuthConfig& config = input.config;
  std::string method = choose_token_auth_method(
      server.token_endpoint_auth_methods, !config.client_secret.empty(), config.has_private_key());
  if (method.empty()) {
    std::string listed;
    for (const std::string& word : server.token_endpoint_auth_methods) {
      listed += (listed.empty() ? "" : ", ") + word;
    }
    error = "the authorization server " + server.issuer +
            " takes no private_key_jwt client assertion at its token endpoint (it lists " + listed +
            "): configure what it takes (oauth.client_secret)";
    return {};
  }
  return {config.client_id, config.client_secret, method, ""};
}

// A private_key_jwt client's assertion for its next token request, signed now: aud names the
// authorization server by its issuer (as MCP's SDKs do; RFC 7523 allows the token endpoint
// too). False with `error` set when the key cannot sign.
bool flow_sign(OAuthClient& client, const OAuthFlowInput& input, const OAuthServerMetadata& server,
               std::string& error) {
  if (client.auth_method != "private_key_jwt") return true;
  const std::string& audience = server.issuer.empty() ? server.token_endpoint : server.issuer;
  client.assertion = make_client_assertion(input.config, client.id, audience,
                                           server.token_endpoint_auth_signing_algs, error);
  return !client.assertion.empty();
}

// The client toolhost signs in as: configured, kept from an earlier registration with the same
// authorization server, a metadata document, or registered now.
OAuthClient flow_client(const OAuthFlowInput& input, const OAuthDiscovery& found,
                       const OAuthRecord& kept, const std::string& redirect_uri,
                       std::string& error) {
  const OAuthServerMetadata& server = found.server;
  if (!input.config.client_id.empty()) return flow_configured_client(input, server, error);
  if (!kept.client_id.empty() && kept.issuer == server.issuer) {
    return {kept.client_id, kept.client_secret, kept.client_auth_method, ""};
  }
  if (server.client_id_metadata_documents && !input.config.client_metadata_url.empty()) {
    return {input.config.client_metadata_url, "", "none", ""};
  }
  if (server.registration_endpoint.empty()) {
    error = "the authorization server " + server.issuer +
            " offers no dynamic client registration: register toolhost there and set "
            "oauth.client_id (and oauth.client_secret) for this server";
    return {};
  }
  return register_client(server.registration_endpoint, redirect_uri,
                         server.token_endpoint_auth_methods, error);
}

// The scopes to ask for (MCP's scope selection): a step-up adds the challenge's to those held;
// otherwise the challenge's, else the resource's scopes_supported, else the configured ones.
std::string flow_scope(const OAuthFlowInput& input, const OAuthDiscovery& found,
                      const OAuthRecord& kept) {
  std::string scope = found.scope.empty() ? input.config.scope : found.scope;
  if (input.status == 403) scope = scope_union(kept.scope, scope);
  // A refresh token where the authorization server hands them out (offline_access).
  if (flow_lists(found.server.scopes_supported, "offline_access") && !scope.empty()) {
    scope = scope_union(scope, "offline_access");
  }
  return scope;
}

}  // namespace

OAuthFlowResult run_oauth_flow(const OAuthFlowInput& input) {
  std::string error;
  OAuthRecord kept;
  if (auto loaded = load_oauth_record(input.state_dir, input.server, error)) kept = *loaded;
  if (kept.server_url != input.server_url) kept = OAuthRecord{};  // made for another server
  kept.server_url = input.server_url;
  std::string header = input.challenge;
  if (input.status == 0 && header.empty()) header = flow_probe_challenge(input.server_url);
  auto challenge = bearer_challenge(header);
  OAuthDiscovery found = discover_oauth(input.server_url, challenge);
  if (!found.error.empty()) return flow_failed(found.error);
  if (kept.issuer != found.server.issuer) {
    kept = OAuthRecord{};
    kept.server_url = input.server_url;
  }
  kept.issuer = found.server.issuer;
  if (input.status == 403 && !challenge["scope"].empty() &&
      scope_covers(kept.scope, challenge["scope"])) {
    return flow_failed("the server refuses the call although the sign-in granted the scopes it asks "
                  "for (" + challenge["scope"] + ")");
  }
  std::string scope = flow_scope(input, found, kept);
  FormFields resource = {{"resource", found.resource}};

  // A refresh needs no browser; a refused one falls through to signing in again.
  if (input.status == 401 && !kept.refresh_token.empty() && !kept.client_id.empty()) {
    FormFields fields = {{"grant_type", "refresh_token"}, {"refresh_token", kept.refresh_token}};
    fields.insert(fields.end(), resource.begin(), resource.end());
    OAuthClient client{kept.client_id, kept.client_secret, kept.client_auth_method, ""};
    std::string unusable;  // the sign-in below meets the same problem and says it
    if (!input.config.client_id.empty()) {
      client = flow_configured_client(input, found.server, unusable);
    }
    if (!client.id.empty() && flow_sign(client, input, found.server, unusable)) {
      TokenAnswer answer = request_token(found.server.token_endpoint, fields, client);
      if (answer.error.empty()) return flow_keep(kept, answer, kept.scope, input);
    }
    kept.refresh_token.clear();
    kept.access_token.clear();
  }

  if (input.config.grant == "client_credentials") {
    OAuthClient client = flow_configured_client(input, found.server, error);
    if (client.id.empty() || !flow_sign(client, input, found.server, error)) {
      return flow_failed(error);
    }
    FormFields fields = {{"grant_type", "client_credentials"}};
    if (!scope.empty()) fields.emplace_back("scope", scope);
    fields.insert(fields.end(), resource.begin(), resource.end());
    TokenAnswer answer = request_token(found.server.token_endpoint, fields, client);
    if (!answer.error.empty()) return flow_failed(answer.error);
    kept.client_id = client.id;
    kept.client_auth_method = client.auth_method;
    return flow_keep(kept, answer, scope, input);
  }

  auto redirect = input.redirect ? input.redirect : std::make_shared<LoopbackRedirect>();
  if (!redirect->listen(error)) return flow_failed(error);
  OAuthClient client = flow_client(input, found, kept, redirect->redirect_uri(), error);
  if (client.id.empty()) return flow_failed(error);
  kept.client_id = client.id;
  kept.client_secret = client.secret;
  kept.client_auth_method = client.auth_method;
  if (input.config.client_id.empty() && !input.state_dir.empty()) {
    std::string unsaved;  // the registration is reused next time, when it can be kept
    save_oauth_record(input.state_dir, input.server, kept, unsaved);
  }

  std::string verifier = random_urlsafe(32);
  std::string state = random_urlsafe(16);
  FormFields query = {{"response_type", "code"},
                      {"client_id", client.id},
                      {"redirect_uri", redirect->redirect_uri()},
                      {"code_challenge", pkce_s256_challenge(verifier)},
                      {"code_challenge_method", "S256"},
                      {"state", state}};
  if (!scope.empty()) query.emplace_back("scope", scope);
  query.insert(query.end(), resource.begin(), resource.end());
  std::string url = with_query(found.server.authorization_endpoint, query);
  if (input.announce) input.announce(url, split_url(found.server.authorization_endpoint).host());
  RedirectOutcome outcome = redirect->wait(state, input.config.timeout_ms, input.browser, url);
  if (!outcome.error.empty()) return flow_failed(outcome.error);
  if (!outcome.iss.empty() && outcome.iss != found.server.issuer) {
    return flow_failed("the redirect came from the issuer " + outcome.iss + ", not " +
                  found.server.issuer + ": refused");
  }
  FormFields fields = {{"grant_type", "authorization_code"},
                       {"code", outcome.code},
                       {"redirect_uri", redirect->redirect_uri()},
                       {"code_verifier", verifier}};
  fields.insert(fields.end(), resource.begin(), resource.end());
  if (!flow_sign(client, input, found.server, error)) return flow_failed(error);
  TokenAnswer answer = request_token(found.server.token_endpoint, fields, client);
  if (!answer.error.empty()) return flow_failed(answer.error);
  return flow_keep(kept, answer, scope, input);
}

}  // namespace toolhost::mcp
