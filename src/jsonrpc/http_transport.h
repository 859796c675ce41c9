#pragma once
// JSON-RPC over HTTP (the transport half of MCP's Streamable HTTP, SPEC 13.1): each message is
// one POST; the answer comes back as a JSON body or as an SSE stream (`text/event-stream`) that
// may carry other messages first. A stream the server drops before answering is resumed by GET
// with `Last-Event-ID` after waiting the stream's `retry`. After established(), a GET stream
// carries the server's own messages. libcurl's multi interface runs on the libuv loop (its
// sockets on uv_poll, its timer on uv_timer): nothing here blocks the loop, DNS included
// (libcurl's threaded resolver).
//
// It knows JSON-RPC, not MCP: the session header's name is given (MCP: Mcp-Session-Id), and
// so are the headers established() adds (MCP-Protocol-Version). Failures become values: a
// request whose POST fails (HTTP 500, a redirect, an unreachable server, a body over the cap,
// a stream that ended and cannot resume) is answered with a JSON-RPC error naming why, as if
// the server had sent it; a 404 to a request that carried the session ends the connection
// (the session is over: a new connection starts a new one).
//
// As StreamTransport: every libuv handle and the curl state live in a block that frees itself
// once they are closed, so the transport may be destroyed at any time, even from inside one of
// its handlers; messages are delivered from libuv callbacks, never from inside libcurl's.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "jsonrpc/line_splitter.h"
#include "jsonrpc/transport.h"

namespace toolhost::jsonrpc {

// Sign-in for a server that refuses with 401 (or 403 and a WWW-Authenticate challenge): MCP's
// OAuth (mcp/oauth_authorizer.h). The transport knows only headers: what to send as
// Authorization, and that a refused request waits, with every request sent meanwhile, until the
// authorizer has a new authorization (then they go again) or gives up (then they fail with why).
class HttpAuthorizer {
 public:
  virtual ~HttpAuthorizer() = default;
  // The Authorization header's value for the next request; "" for none.
  virtual std::string authorization() = 0;
  // The server refused a request (`status`, its WWW-Authenticate); `attempt` counts the
  // sign-ins that request already waited for. `done` is called once, on the loop, with nothing
  // when a new authorization() is ready, else with why not (words for the user; no secret).
  virtual void challenged(long status, const std::string& www_authenticate, int attempt,
                          std::function<void(std::optional<std::string> error)> done) = 0;
};

class HttpTransport : public Transport {
 public:
  struct Options {
    std::string url;  // http:// or https://; redirects are refused, not followed
    Headers headers;  // sent with every request (tokens)
    // The header a server names its session with ("" for none). Once a response carries it,
    // every later request does; a 404 to a request that carried it closes the transport;
    // close() ends the session with a DELETE.
    std::string session_header;
    size_t max_message = kMaxMessageBytes;
    uint64_t connect_timeout_ms = 10'000;
    // Before resuming a stream whose server sent no `retry:`.
    uint64_t default_retry_ms = 1'000;
    // Resumptions in a row that bring no new event before the request fails.
    int max_resumes = 5;
    // Open the GET stream for the server's own messages at established().
    bool listen = true;
    // Null: a 401 fails the request with the server's words.
    std::shared_ptr<HttpAuthorizer> authorizer;
    // Sign-ins one request may wait for before it fails (a server that never accepts).
    int max_auth_attempts = 3;
    // What went wrong outside any request (a notification's POST, the GET stream), for a log.
    std::function<void(const std::string& what)> on_error;
  };

  // Null with the reason in `error` when the URL is not http(s) or libcurl cannot start.
  static std::unique_ptr<HttpTransport> create(uv_loop_t* loop, Options options,
                                               std::string& error);
  ~HttpTransport() override;

  bool start(Handlers handlers, std::string& error) override;
  void send(std::string text) override;
  // Aborts every transfer; with a session, sends the DELETE that ends it (waited for at most
  // 2 s, in the background).
  void close(const std::string& reason) override;
  bool is_open() const override;
  void established(const Headers& headers) override;

  // The session the server named, "" before one (for tests and :ToolMcp).
  const std::string& session() const;
  // Transfers running and resumptions waiting (for tests).
  size_t active() const;

  struct Core;

 private:
  explicit HttpTransport(Core* core) : core_(core) {}
  Core* core_;  // frees itself once its handles are closed
};

}  // namespace toolhost::jsonrpc
