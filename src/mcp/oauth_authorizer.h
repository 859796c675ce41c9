#pragma once
// The sign-in of one HTTP MCP server, as the HttpTransport sees it (jsonrpc::HttpAuthorizer):
// the kept token as the Authorization header, and a refusal answered by a sign-in
// (oauth_flow.h) run on libuv's thread pool, so the host's loop never waits on it. Requests
// refused or sent meanwhile wait in the transport; one sign-in runs at a time per server, and
// every refusal during it waits for that one; one that failed answers those of the next
// seconds with its reason (a login asked for explicitly always starts one).

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/http_transport.h"
#include "mcp/oauth_config.h"
#include "mcp/oauth_redirect.h"
#include "mcp/oauth_store.h"

namespace toolhost::mcp {

class OAuthAuthorizer : public jsonrpc::HttpAuthorizer,
                        public std::enable_shared_from_this<OAuthAuthorizer> {
 public:
  struct Options {
    std::string server;  // its name
    std::string server_url;
    OAuthConfig config;
    std::string state_dir;  // where the record is kept ("": nowhere, this process only)
    std::string browser;    // a shell command to open the URL with ("": the owner opens it)
    // On the loop: a sign-in waits for the browser at `url` (the authorization server: `host`).
    std::function<void(const std::string& url, const std::string& host)> on_sign_in;
    // On the loop: a sign-in ended; "" or why it failed.
    std::function<void(const std::string& error)> on_signed_in;
  };
  using Done = std::function<void(std::optional<std::string> error)>;

  static std::shared_ptr<OAuthAuthorizer> create(uv_loop_t* loop, Options options);
  ~OAuthAuthorizer() override;

  std::string authorization() override;
  void challenged(long status, const std::string& www_authenticate, int attempt,
                  Done done) override;
  // A sign-in through the browser now, whatever is kept (`mcp login`).
  void sign_in(Done done);
  bool signing_in() const { return running_; }
  // The URL a waiting sign-in asked to open ("" when none waits): for :ToolMcp.
  const std::string& pending_url() const { return pending_url_; }
  // Ends a sign-in waiting for its browser (the host is closing).
  void cancel();

 private:
  OAuthAuthorizer(uv_loop_t* loop, Options options);
  void start(long status, const std::string& challenge);
  void finished(const std::string& error, const std::string& warning, const OAuthRecord& record);

  struct Work;
  uv_loop_t* loop_;
  Options options_;
  std::string access_token_;
  bool running_ = false;
  std::vector<Done> waiting_;
  std::string pending_url_;
  // A sign-in that just failed answers the refusals that follow it at once, for a moment: one
  // request's failure (the handshake, then its discover probe) asks the user once, not twice.
  std::string last_failure_;
  uint64_t failed_at_ms_ = 0;
  uv_async_t* announced_;  // the worker's announcement, to the loop
  std::mutex mutex_;       // guards announcement_ and redirect_
  std::pair<std::string, std::string> announcement_;
  std::shared_ptr<LoopbackRedirect> redirect_;
};

}  // namespace toolhost::mcp
