#include "rpc/peer.h"

#include <cstring>

#include "base/log.h"
#include "rpc/convert.h"
#include "rpc/encoder.h"

namespace toolhost::rpc {
namespace {

constexpr size_t kReadSize = 64 * 1024;

struct WriteRequest {
  uv_write_t req;
  std::string bytes;
};

}  // namespace

Peer::Peer(uv_loop_t* loop) : loop_(loop) {}

Peer::~Peer() {
  // The owner runs the loop until is_closed(); a Peer destroyed with open handles would
  // leave libuv pointing at freed memory, so this is a programming error worth a log line.
  if (handles_open_ != 0) log::error("rpc: Peer destroyed before its pipes closed");
}

int Peer::open(int in_fd, int out_fd) {
  for (auto [pipe, fd] : {std::pair{&in_, in_fd}, std::pair{&out_, out_fd}}) {
    if (int rc = uv_pipe_init(loop_, pipe, 0)) return rc;
    pipe->data = this;
    ++handles_open_;
    if (int rc = uv_pipe_open(pipe, fd)) {
      close("cannot open fd");
      return rc;
    }
  }
  open_ = true;
  return uv_read_start(reinterpret_cast<uv_stream_t*>(&in_), on_alloc, on_read);
}

void Peer::on_request(const std::string& method, RequestHandler handler) {
  request_handlers_[method] = std::move(handler);
}

void Peer::on_notification(const std::string& method, NotificationHandler handler) {
  notification_handlers_[method] = std::move(handler);
}

void Peer::request(std::string_view method, const nlohmann::json& params, ResponseCallback done) {
  if (!open_) {
    if (done) done(Response{"connection closed", msgpack::object()});
    return;
  }
  uint32_t id = next_id_++;
  if (done) pending_.emplace(id, std::move(done));
  send(encode_request(id, method, params));
}

void Peer::notify(std::string_view method, const nlohmann::json& params) {
  if (open_) send(encode_notification(method, params));
}

void Peer::send(std::string bytes) {
  auto* write = new WriteRequest{{}, std::move(bytes)};  // owned by on_write
  write->req.data = this;
  uv_buf_t buf = uv_buf_init(write->bytes.data(), static_cast<unsigned>(write->bytes.size()));
  if (int rc = uv_write(&write->req, reinterpret_cast<uv_stream_t*>(&out_), &buf, 1, on_write)) {
    delete write;
    close(std::string("write failed: ") + uv_strerror(rc));
  }
}

void Peer::on_write(uv_write_t* req, int status) {
  std::unique_ptr<WriteRequest> write(reinterpret_cast<WriteRequest*>(req));
  if (status < 0 && status != UV_ECANCELED) {
    static_cast<Peer*>(req->data)->close(std::string("write failed: ") + uv_strerror(status));
  }
}

void Peer::on_alloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<Peer*>(handle->data);
  *buf = uv_buf_init(self->decoder_.reserve(kReadSize), kReadSize);
}

void Peer::on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
  auto* self = static_cast<Peer*>(stream->data);
  if (nread == UV_EOF) return self->close("end of input");
  if (nread < 0) return self->close(std::string("read failed: ") + uv_strerror(nread));
  self->received(static_cast<size_t>(nread));
}

void Peer::feed(std::string_view bytes) {
  if (!open_) return;
  std::memcpy(decoder_.reserve(bytes.size()), bytes.data(), bytes.size());
  received(bytes.size());
}

void Peer::received(size_t size) {
  std::vector<Message> messages;
  auto error = decoder_.consumed(size, messages);
  for (Message& message : messages) {
    if (!open_) break;
    dispatch(message);
  }
  if (error) {
    log::error("rpc: " + *error);
    close(*error);
  }
}

bool Peer::refused_as_too_deep(Message& message) {
  const bool deep = message.type == MessageType::Response
                        ? nested_deeper_than(message.error, kMaxNesting) ||
                              nested_deeper_than(message.result, kMaxNesting)
                        : nested_deeper_than(message.params, kMaxNesting);
  if (!deep) return false;
  if (message.type == MessageType::Notification) {
    // Its handler still runs (to_json makes the deep part null): one that answers through
    // another channel (toolhost.call's token) must not leave its caller waiting.
    log::warn("rpc: notification " + message.method + " nested deeper than " +
              std::to_string(kMaxNesting) + " levels");
    return false;
  }
  const std::string why = "message nested deeper than " + std::to_string(kMaxNesting) + " levels";
  log::warn("rpc: " + why + (message.method.empty() ? "" : " (" + message.method + ")"));
  if (message.type == MessageType::Request) {
    send(encode_response(message.id, nlohmann::json::array({0, why}), nullptr));
  } else if (message.type == MessageType::Response) {
    auto it = pending_.find(message.id);
    if (it != pending_.end()) {
      ResponseCallback done = std::move(it->second);
      pending_.erase(it);
      done(Response{why, msgpack::object()});
    }
  }
  return true;
}

void Peer::dispatch(Message& message) {
  // A handler may convert what it gets recursively (to_json): a Lua table nested 70 deep
  // must be refused here, not end the connection (the host would exit).
  try {
    if (refused_as_too_deep(message)) return;
  } catch (const std::exception& e) {
    return log::error(std::string("rpc: refusing a message failed: ") + e.what());
  }
  if (message.type == MessageType::Request) return dispatch_request(message);
  // Handlers run inside a libuv callback: no exception may escape into C code.
  try {
    if (message.type == MessageType::Response) {
      auto it = pending_.find(message.id);
      if (it == pending_.end()) {
        log::warn("rpc: response to unknown request " + std::to_string(message.id));
        return;
      }
      ResponseCallback done = std::move(it->second);
      pending_.erase(it);
      Response response;
      if (message.error.type != msgpack::type::NIL) response.error = error_text(message.error);
      response.result = message.result;
      done(response);
      return;
    }
    auto it = notification_handlers_.find(message.method);
    if (it == notification_handlers_.end()) {
      log::debug("rpc: unhandled notification " + message.method);
      return;
    }
    it->second(message);
  } catch (const std::exception& e) {
    log::error("rpc: handler for '" + message.method + "' failed: " + e.what());
  } catch (...) {
    log::error("rpc: handler for '" + message.method + "' failed");
  }
}

void Peer::dispatch_request(const Message& message) {
  // A request gets exactly one response: a handler that responds and then throws, or
  // responds twice, must not put a second response with the same id on the wire. The
  // Respond may outlive the Peer (a handler keeps it until a job ends): it then does nothing.
  uint32_t id = message.id;
  auto replied = std::make_shared<bool>(false);
  Respond respond = [this, id, replied, alive = std::weak_ptr<bool>(alive_)](
                        const nlohmann::json& error, const nlohmann::json& result) {
    if (alive.expired()) return;
    if (*replied) {
      log::warn("rpc: second response to request " + std::to_string(id) + " dropped");
      return;
    }
    *replied = true;
    if (open_) send(encode_response(id, error, result));
  };
  auto it = request_handlers_.find(message.method);
  if (it == request_handlers_.end()) {
    respond(nlohmann::json::array({0, "unknown method: " + message.method}), nullptr);
    return;
  }
  std::string failure;
  try {
    it->second(message, respond);
    return;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  log::error("rpc: handler for '" + message.method + "' failed: " + failure);
  if (!*replied) respond(nlohmann::json::array({0, failure}), nullptr);
}

void Peer::close(const std::string& reason) {
  if (!open_ && handles_open_ == 0) return;
  bool was_open = open_;
  open_ = false;
  for (uv_pipe_t* pipe : {&in_, &out_}) {
    auto* handle = reinterpret_cast<uv_handle_t*>(pipe);
    if (handle->loop && !uv_is_closing(handle)) uv_close(handle, on_handle_closed);
  }
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, done] : pending) done(Response{"connection closed", msgpack::object()});
  if (was_open && on_close_) {
    CloseCallback callback = std::move(on_close_);
    callback(reason);
  }
}

void Peer::on_handle_closed(uv_handle_t* handle) {
  static_cast<Peer*>(handle->data)->handles_open_--;
}

}  // namespace toolhost::rpc
