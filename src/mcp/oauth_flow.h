#pragma once
// One sign-in to an MCP server, start to end, blocking (on the sign-in's worker thread,
// oauth_authorizer.h): discovery, then a refresh where a refresh token is kept, else the
// authorization code flow with PKCE through the browser and the loopback redirect (or the
// client-credentials grant a machine uses); the record saved for the next time.

#include <functional>
#include <memory>
#include <string>

#include "mcp/oauth_config.h"
#include "mcp/oauth_redirect.h"
#include "mcp/oauth_store.h"

namespace toolhost::mcp {

struct OAuthFlowInput {
  std::string server;  // its name: the record's
  std::string server_url;
  OAuthConfig config;
  std::string state_dir;
  long status = 401;  // what the server answered: 401, 403 (more scope), 0 (a login asked for)
  std::string challenge;  // its WWW-Authenticate
  std::string browser;    // a shell command opening a URL; "": none (the URL is announced)
  // The URL to open and the authorization server's host, before waiting for the redirect.
  // Called on the worker thread.
  std::function<void(const std::string& url, const std::string& host)> announce;
  // Made by the caller so that it can cancel the wait; null: one is made here.
  std::shared_ptr<LoopbackRedirect> redirect;
};

struct OAuthFlowResult {
  std::string error;    // empty: signed in (words for the user; never a secret)
  std::string warning;  // signed in, but the record could not be saved: why
  OAuthRecord record;
};

OAuthFlowResult run_oauth_flow(const OAuthFlowInput& input);

}  // namespace toolhost::mcp
