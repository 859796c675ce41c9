#include "jsonrpc/endpoint.h"

#include <exception>

namespace toolhost::jsonrpc {
namespace {

Error internal_error(const std::string& message) {
  return Error{code::kInternalError, message, nullptr};
}

}  // namespace

Responder::State::~State() {
  if (!answered && send) {
    send(make_error(id, internal_error("the request was dropped without an answer")));
  }
}

void Responder::result(Json value) {
  if (state_->answered) return;
  state_->answered = true;
  if (state_->send) state_->send(make_result(state_->id, std::move(value)));
}

void Responder::error(Error error) {
  if (state_->answered) return;
  state_->answered = true;
  if (state_->send) state_->send(make_error(state_->id, std::move(error)));
}

Endpoint::Endpoint(uv_loop_t* loop, std::unique_ptr<Transport> transport)
    : loop_(loop), transport_(std::move(transport)), timer_(new uv_timer_t) {
  uv_timer_init(loop_, timer_);
  timer_->data = this;
}

Endpoint::~Endpoint() {
  *alive_ = false;
  uv_timer_stop(timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
  on_closed_ = nullptr;
  // Pending callbacks still learn that their request ended: their owners may outlive us.
  closed("the connection was closed");
}

void Endpoint::on_request(const std::string& method, RequestHandler handler) {
  request_handlers_[method] = std::move(handler);
}

void Endpoint::on_notification(const std::string& method, NotificationHandler handler) {
  notification_handlers_[method] = std::move(handler);
}

bool Endpoint::start(std::string& error) {
  Transport::Handlers handlers;
  handlers.message = [this](std::string_view text) { received(text); };
  handlers.dropped = [this](const std::string& reason) {
    send(make_error(nullptr, Error{code::kParseError, reason, nullptr}));
  };
  handlers.closed = [this](const std::string& reason) { closed(reason); };
  return transport_->start(std::move(handlers), error);
}

Json Endpoint::request(const std::string& method, Json params, ReplyCallback done,
                       RequestOptions options) {
  int64_t id = next_id_++;
  if (!is_open()) {
    if (done) done(Reply{nullptr, Error{code::kConnectionClosed, "the connection is closed", {}}});
    return id;
  }
  uint64_t now = uv_now(loop_);
  Pending& pending = pending_[id];
  pending = Pending{std::move(done), options.timeout_ms, now, options.max_total_ms, 0};
  if (options.timeout_ms > 0) schedule(id, pending, now + options.timeout_ms);
  send(make_request(id, method, std::move(params)));
  return id;
}

void Endpoint::notify(const std::string& method, Json params) {
  send(make_notification(method, std::move(params)));
}

bool Endpoint::extend(const Json& id) {
  if (!id.is_number_integer()) return false;
  auto it = pending_.find(id.get<int64_t>());
  if (it == pending_.end()) return false;
  Pending& pending = it->second;
  if (pending.timeout_ms == 0) return true;
  uint64_t deadline = uv_now(loop_) + pending.timeout_ms;
  if (pending.max_total_ms > 0) {
    deadline = std::min(deadline, pending.started + pending.max_total_ms);
  }
  schedule(it->first, pending, deadline);
  return true;
}

bool Endpoint::abandon(const Json& id, Error error) {
  if (!id.is_number_integer() || pending_.count(id.get<int64_t>()) == 0) return false;
  finish(id.get<int64_t>(), Reply{nullptr, std::move(error)});
  return true;
}

void Endpoint::close(const std::string& reason) {
  if (transport_) transport_->close(reason);  // calls closed() through the transport
  closed(reason);
}

void Endpoint::received(std::string_view text) {
  Parsed parsed = parse_message(text);
  if (parsed.error) {
    send(make_error(parsed.id, std::move(*parsed.error)));
    return;
  }
  const Message& message = *parsed.message;
  if (message.is_response()) {
    dispatch_response(message);
  } else if (message.is_request()) {
    dispatch_request(message);
  } else if (auto it = notification_handlers_.find(message.method);
             it != notification_handlers_.end()) {
    try {
      auto handler = it->second;  // the handler may replace itself
      handler(message);
    } catch (const std::exception&) {
      // Nobody to answer; a notification's failure must not end the connection.
    }
  }
}

void Endpoint::dispatch_request(const Message& message) {
  auto state = std::make_shared<Responder::State>();
  state->id = message.id;
  std::weak_ptr<bool> alive = alive_;
  state->send = [this, alive](Message reply) {
    if (auto live = alive.lock(); live && *live) send(reply);
  };
  Responder responder(state);
  RequestHandler handler;
  if (auto it = request_handlers_.find(message.method); it != request_handlers_.end()) {
    handler = it->second;
  } else {
    handler = fallback_;
  }
  if (!handler) {
    responder.error(Error{code::kMethodNotFound, "method not found: " + message.method, nullptr});
    return;
  }
  try {
    handler(message, responder);
  } catch (const std::exception& e) {
    responder.error(internal_error(e.what()));
  } catch (...) {
    responder.error(internal_error("the handler failed"));
  }
}

void Endpoint::dispatch_response(const Message& message) {
  if (!message.id.is_number_integer() || pending_.count(message.id.get<int64_t>()) == 0) {
    ++late_replies_;  // ours timed out or was abandoned, or the id was never ours
    return;
  }
  finish(message.id.get<int64_t>(), Reply{message.result, message.error, true});
}

void Endpoint::send(const Message& message) {
  if (is_open()) transport_->send(encode(message));
}

void Endpoint::closed(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  std::weak_ptr<bool> alive = alive_;
  while (!pending_.empty()) {
    finish(pending_.begin()->first,
           Reply{nullptr, Error{code::kConnectionClosed, "connection closed: " + reason, nullptr}});
    if (alive.expired()) return;
  }
  if (auto callback = std::move(on_closed_)) callback(reason);
}

void Endpoint::finish(int64_t id, const Reply& reply) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  ReplyCallback done = std::move(it->second.done);
  if (it->second.deadline != 0) deadlines_.erase({it->second.deadline, id});
  pending_.erase(it);
  if (done) done(reply);
}

void Endpoint::schedule(int64_t id, Pending& pending, uint64_t deadline) {
  if (pending.deadline != 0) deadlines_.erase({pending.deadline, id});
  pending.deadline = deadline;
  deadlines_.emplace(deadline, id);
  arm_timer();
}

void Endpoint::arm_timer() {
  if (deadlines_.empty()) {
    uv_timer_stop(timer_);
    return;
  }
  uint64_t now = uv_now(loop_);
  uint64_t first = deadlines_.begin()->first;
  uv_timer_start(
      timer_, [](uv_timer_t* timer) { static_cast<Endpoint*>(timer->data)->expire(); },
      first > now ? first - now : 0, 0);
}

void Endpoint::expire() {
  uint64_t now = uv_now(loop_);
  std::weak_ptr<bool> alive = alive_;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    int64_t id = deadlines_.begin()->second;
    uint64_t waited = now - pending_[id].started;
    finish(id, Reply{nullptr,
                     Error{code::kRequestTimeout,
                           "request timed out after " + std::to_string(waited) + " ms", nullptr}});
    if (alive.expired()) return;
  }
  arm_timer();
}

}  // namespace toolhost::jsonrpc
