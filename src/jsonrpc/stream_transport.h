#pragma once
// Newline-delimited JSON-RPC over libuv streams: a process's stdin/stdout, a child's pipes, or
// a connected unix socket (one handle both ways). Like rpc::Peer, every libuv handle lives in a
// block that frees itself in the last close callback, so the transport may be destroyed at any
// time, even from inside one of its own handlers.

#include <uv.h>

#include <memory>
#include <string>

#include "jsonrpc/line_splitter.h"
#include "jsonrpc/transport.h"

namespace toolhost::jsonrpc {

class StreamTransport : public Transport {
 public:
  // Reads `in_fd` and writes `out_fd`; they may be the same descriptor (a socket). The fds are
  // owned by the transport from here on, and closed with it.
  static std::unique_ptr<StreamTransport> from_fds(uv_loop_t* loop, int in_fd, int out_fd,
                                                   size_t max_message = kMaxMessageBytes);
  // Connects to the unix socket at `path`. A unix-socket connect completes at once or fails,
  // so this does not wait on the peer. Null with the reason in `error` when it fails.
  static std::unique_ptr<StreamTransport> connect(uv_loop_t* loop, const std::string& path,
                                                  std::string& error);

  ~StreamTransport() override;

  bool start(Handlers handlers, std::string& error) override;
  // Bytes another reader took from `in_fd` before this transport: read first, once started.
  void set_unread(std::string bytes);
  void send(std::string text) override;
  // Stops reading; writes already queued are flushed before the descriptors close.
  void close(const std::string& reason) override;
  bool is_open() const override;

  // Bytes written by send() that the kernel has not taken yet (a slow reader).
  size_t queued_bytes() const;

 private:
  struct Handles;
  explicit StreamTransport(Handles* handles) : handles_(handles) {}

  Handles* handles_;  // frees itself once every handle is closed
};

}  // namespace toolhost::jsonrpc
