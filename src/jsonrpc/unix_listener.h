#pragma once
// A unix-socket server for newline-delimited JSON-RPC: the host side of `toolhost mcp serve`'s
// relay (SPEC 13.5). Each accepted connection from our own uid becomes a StreamTransport handed
// to a callback; a peer of another uid gets one JSON-RPC error line and is closed. The socket
// file is ours from bind to close(): a stale one left by a dead host is replaced, a live one is
// never taken over.

#include <sys/types.h>
#include <unistd.h>
#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "jsonrpc/line_splitter.h"
#include "jsonrpc/transport.h"

namespace toolhost::jsonrpc {

class UnixListener {
 public:
  using OnConnection = std::function<void(std::unique_ptr<Transport> connection)>;

  struct Options {
    // The uid a peer must have. Only tests set another one: a second uid is not at hand there.
    uid_t expected_uid = ::geteuid();
    size_t max_message = kMaxMessageBytes;  // per line, for each accepted transport
    // Told about each refused peer and each failed accept (the listener keeps listening).
    std::function<void(const std::string& message)> log;
  };

  // Binds `path` and listens. Null with the reason in `error` when the path is too long, a live
  // server answers there, it is something other than a socket, or the bind fails.
  static std::unique_ptr<UnixListener> listen(uv_loop_t* loop, const std::string& path,
                                              OnConnection on_connection, std::string& error,
                                              Options options);
  static std::unique_ptr<UnixListener> listen(uv_loop_t* loop, const std::string& path,
                                              OnConnection on_connection, std::string& error) {
    return listen(loop, path, std::move(on_connection), error, Options{});
  }

  ~UnixListener();
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Stops accepting and removes the socket file (when it is still the one we bound). Accepted
  // connections are not affected: their owners close them. Idempotent.
  void close();
  bool is_listening() const { return poll_ != nullptr; }
  const std::string& path() const { return path_; }

  // The line a refused peer reads before the connection closes (id null, as JSON-RPC says for
  // an error that answers no request).
  static std::string refusal_line(uid_t owner, uid_t peer);

 private:
  struct Poll;
  UnixListener(uv_loop_t* loop, std::string path, OnConnection on_connection, Options options)
      : loop_(loop),
        path_(std::move(path)),
        on_connection_(std::move(on_connection)),
        options_(std::move(options)) {}
  void accept_all();
  void accepted(int fd);

  uv_loop_t* loop_;
  std::string path_;
  OnConnection on_connection_;
  Options options_;
  int fd_ = -1;
  dev_t device_ = 0;  // the socket file's identity, so close() never unlinks a successor's
  ino_t inode_ = 0;
  Poll* poll_ = nullptr;  // freed by its close callback
  // Expires with the listener: the callback may destroy it while accept_all() loops.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// The peer's uid on a connected unix socket (SO_PEERCRED, getpeereid on the BSDs); false with
// the reason in `error` when the system cannot tell.
bool peer_uid(int fd, uid_t& uid, std::string& error);

}  // namespace toolhost::jsonrpc
