#pragma once
// One msgpack-RPC connection over a pair of libuv pipes. Serves incoming requests and
// notifications and sends its own requests with response callbacks; the same class is the
// host's server side (stdio) and the tests' client side (`nvim --embed`).
// Knows nothing of Neovim's API.

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "rpc/decoder.h"

namespace toolhost::rpc {

struct Response {
  std::string error;       // empty when the call succeeded
  msgpack::object result;  // valid until the callback returns
  bool ok() const { return error.empty(); }
};

class Peer {
 public:
  using Respond = std::function<void(const nlohmann::json& error, const nlohmann::json& result)>;
  using RequestHandler = std::function<void(const Message&, Respond)>;
  using NotificationHandler = std::function<void(const Message&)>;
  using ResponseCallback = std::function<void(const Response&)>;
  using CloseCallback = std::function<void(const std::string& reason)>;

  explicit Peer(uv_loop_t* loop);
  ~Peer();
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  // Reads from `in_fd`, writes to `out_fd` (the host: 0 and 1). Returns a libuv error code.
  int open(int in_fd, int out_fd);

  void on_request(const std::string& method, RequestHandler handler);
  void on_notification(const std::string& method, NotificationHandler handler);
  // Called once when the connection ends: EOF, a read/write error, malformed input, close().
  void on_close(CloseCallback callback) { on_close_ = std::move(callback); }

  void request(std::string_view method, const nlohmann::json& params, ResponseCallback done);
  void notify(std::string_view method, const nlohmann::json& params);

  // Takes `bytes` as if they had been read from the input pipe: decodes them and dispatches
  // every complete message; malformed input closes the connection. The read callback's own
  // path (it only skips the copy), so the fuzzer drives exactly what production runs. Does
  // nothing unless open.
  void feed(std::string_view bytes);

  // Stops reading, fails pending requests and closes the pipes; idempotent.
  void close(const std::string& reason = "closed");
  bool is_open() const { return open_; }
  // True once both pipes' close callbacks have run: the Peer may then be destroyed.
  bool is_closed() const { return handles_open_ == 0; }
  size_t pending_requests() const { return pending_.size(); }

 private:
  static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_handle_closed(uv_handle_t* handle);

  // The last `size` bytes of the decoder's buffer arrived: decode and dispatch them.
  void received(size_t size);
  void dispatch(Message& message);
  // Answers or drops a message nested deeper than kMaxNesting; true when it was one.
  bool refused_as_too_deep(Message& message);
  void dispatch_request(const Message& message);
  void send(std::string bytes);

  uv_loop_t* loop_;
  uv_pipe_t in_{};
  uv_pipe_t out_{};
  int handles_open_ = 0;
  bool open_ = false;
  Decoder decoder_;
  uint32_t next_id_ = 1;
  std::unordered_map<uint32_t, ResponseCallback> pending_;
  std::map<std::string, RequestHandler, std::less<>> request_handlers_;
  std::map<std::string, NotificationHandler, std::less<>> notification_handlers_;
  CloseCallback on_close_;
  // Expires with the Peer, so a Respond kept by a handler knows not to touch it.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::rpc
