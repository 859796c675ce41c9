// The HttpTransport's part in a sign-in (http_transport.h's HttpAuthorizer): a refused request
// is held, with every one sent while the authorizer works, and all go again once it has a new
// authorization, or fail with its reason. Only the authorizer knows what the challenge means.
#include <algorithm>

#include "jsonrpc/http_transport_core.h"

namespace toolhost::jsonrpc {
namespace {

bool asks_for_more_scope(const std::string& challenge) {
  return challenge.find("insufficient_scope") != std::string::npos;
}

}  // namespace

bool HttpTransport::Core::refused_for_sign_in(const HttpExchange& ended) const {
  if (!options.authorizer || (ended.kind != Kind::kPost && ended.kind != Kind::kListen)) {
    return false;
  }
  return ended.status == 401 || (ended.status == 403 && asks_for_more_scope(ended.www_authenticate));
}

void HttpTransport::Core::hold_for_sign_in(const HttpExchange& ended) {
  // Sent with an older authorization than the one now held (another request's sign-in ended
  // meanwhile): it goes again at once, without a new sign-in.
  bool stale = ended.status == 401 && !challenging &&
               ended.authorization() != options.authorizer->authorization();
  if (stale) {
    return start_exchange(ended.kind, ended.body(), ended.request_id, "", 0, std::nullopt,
                          ended.auth_attempts);
  }
  int attempts = ended.auth_attempts + 1;
  if (attempts > options.max_auth_attempts) {
    std::string why = "the server still refuses after " +
                      std::to_string(options.max_auth_attempts) +
                      " sign-ins: " + ended.describe_status();
    if (ended.kind == Kind::kListen) {
      if (options.on_error) options.on_error("stopped listening for the server's messages: " + why);
      return;
    }
    return fail_request(ended.request_id, why);
  }
  held.push_back({ended.kind, ended.body(), ended.request_id, attempts});
  if (challenging) return;
  challenging = true;
  std::weak_ptr<int> alive = life;
  options.authorizer->challenged(ended.status, ended.www_authenticate, attempts,
                                 [this, alive](std::optional<std::string> error) {
                                   if (alive.expired()) return;
                                   signed_in(error);
                                 });
}

void HttpTransport::Core::signed_in(const std::optional<std::string>& error) {
  challenging = false;
  if (!open) return;
  std::vector<Held> waiting;
  waiting.swap(held);
  ++depth;  // a failed request's handler may destroy the transport: this block stays
  for (Held& request : waiting) {
    if (!open) break;
    if (!error) {
      start_exchange(request.kind, std::move(request.body), request.request_id, "", 0,
                     std::nullopt, request.auth_attempts);
    } else if (request.kind == Kind::kListen) {
      if (options.on_error) options.on_error("stopped listening for the server's messages: " + *error);
    } else {
      fail_request(request.request_id, *error);
    }
  }
  flush();
  --depth;
  maybe_free();
}

}  // namespace toolhost::jsonrpc
