#pragma once
// One JSON-RPC 2.0 conversation over a Transport, the same for both MCP sides (as the
// TypeScript SDK's Protocol class): our requests get ids, their responses are matched, each has
// a timeout that progress may extend up to a maximum, and a reply that comes after the request
// ended (timed out, abandoned) is dropped. Incoming requests go to handlers that answer through
// a Responder, at once or later; a bad message is answered with an error and the connection
// stays. Knows no MCP method.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "jsonrpc/message.h"
#include "jsonrpc/transport.h"

namespace toolhost::jsonrpc {

struct RequestOptions {
  uint64_t timeout_ms = 60'000;  // 0: none
  uint64_t max_total_ms = 0;     // the cap on extend(); 0: no cap
};

struct Reply {
  Json result;
  std::optional<Error> error;
  // The peer's answer; false when the endpoint ended the request itself (a timeout, the close,
  // abandon()), whose codes a peer may send too.
  bool from_peer = false;
  bool ok() const { return !error; }
};

// Answers one incoming request exactly once. Copies share the answer; when the last copy goes
// without answering, the peer gets an internal error instead of waiting forever.
class Responder {
 public:
  void result(Json value);
  void error(Error error);
  // The peer cancelled the request: no answer is sent at all (MCP's cancellation rule).
  void withdraw() { state_->answered = true; }
  bool answered() const { return state_->answered; }
  const Json& id() const { return state_->id; }

 private:
  friend class Endpoint;
  struct State {
    Json id;
    bool answered = false;
    std::function<void(Message)> send;  // empty once the endpoint is gone
    ~State();
  };
  explicit Responder(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

class Endpoint {
 public:
  using RequestHandler = std::function<void(const Message&, Responder)>;
  using NotificationHandler = std::function<void(const Message&)>;
  using ReplyCallback = std::function<void(const Reply&)>;

  Endpoint(uv_loop_t* loop, std::unique_ptr<Transport> transport);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Handlers first, then start(). An unknown request is answered "method not found" unless a
  // fallback handles it; an unknown notification is ignored, as JSON-RPC says.
  void on_request(const std::string& method, RequestHandler handler);
  void on_notification(const std::string& method, NotificationHandler handler);
  void on_other_request(RequestHandler handler) { fallback_ = std::move(handler); }
  void on_closed(std::function<void(const std::string& reason)> callback) {
    on_closed_ = std::move(callback);
  }
  bool start(std::string& error);

  // Sends a request and returns its id. `done` is called exactly once: with the reply, or with
  // kRequestTimeout, kConnectionClosed or the error given to abandon().
  Json request(const std::string& method, Json params, ReplyCallback done,
               RequestOptions options = {});
  void notify(const std::string& method, Json params);
  // Progress arrived for `id`: its timeout starts again, within max_total_ms. False when the
  // request is no longer pending.
  bool extend(const Json& id);
  // Ends a pending request now with `error` (the caller cancelled it); its reply, if one comes,
  // is dropped. False when it was not pending.
  bool abandon(const Json& id, Error error);

  void close(const std::string& reason);
  bool is_open() const { return transport_ && transport_->is_open(); }
  size_t pending() const { return pending_.size(); }
  // Replies whose request had already ended, dropped (for tests and diagnostics).
  size_t late_replies() const { return late_replies_; }

 private:
  struct Pending {
    ReplyCallback done;
    uint64_t timeout_ms;
    uint64_t started;
    uint64_t max_total_ms;
    uint64_t deadline;  // 0: none
  };

  void received(std::string_view text);
  void dispatch_request(const Message& message);
  void dispatch_response(const Message& message);
  void send(const Message& message);
  void closed(const std::string& reason);
  // Removes the request and calls its callback; the endpoint may be gone when it returns.
  void finish(int64_t id, const Reply& reply);
  void schedule(int64_t id, Pending& pending, uint64_t deadline);
  void arm_timer();
  void expire();

  uv_loop_t* loop_;
  std::unique_ptr<Transport> transport_;
  uv_timer_t* timer_;  // freed by its close callback, which may run after this endpoint is gone
  int64_t next_id_ = 1;
  std::map<int64_t, Pending> pending_;
  std::set<std::pair<uint64_t, int64_t>> deadlines_;
  std::map<std::string, RequestHandler, std::less<>> request_handlers_;
  std::map<std::string, NotificationHandler, std::less<>> notification_handlers_;
  RequestHandler fallback_;
  std::function<void(const std::string&)> on_closed_;
  size_t late_replies_ = 0;
  bool closed_ = false;
  // Expires with the endpoint: code that called out checks it before touching members.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::jsonrpc
