#pragma once
// What the Endpoint needs from a connection: whole JSON texts in, whole JSON texts out. Framing
// (newlines on stdio and sockets, HTTP bodies and SSE events) is the transport's business; the
// Endpoint never sees bytes, and a transport never knows a method name.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolhost::jsonrpc {

class Transport {
 public:
  struct Handlers {
    std::function<void(std::string_view text)> message;
    // Input the transport had to drop (a message over the cap): the connection stays.
    std::function<void(const std::string& reason)> dropped;
    // Called once, when the connection is over (EOF, an error, or close()).
    std::function<void(const std::string& reason)> closed;
  };

  virtual ~Transport() = default;
  // Starts delivering to `handlers`; false (with the reason in `error`) when it cannot.
  virtual bool start(Handlers handlers, std::string& error) = 0;
  virtual void send(std::string text) = 0;
  // Stops reading and writing; `closed` is called once. Idempotent.
  virtual void close(const std::string& reason) = 0;
  virtual bool is_open() const = 0;

  using Headers = std::vector<std::pair<std::string, std::string>>;
  // The conversation is set up (MCP: the handshake is done). Where requests have headers
  // (HTTP), `headers` go with every later one (a header of the same name is replaced); a
  // transport may now open its channel for the peer's own messages. Line transports ignore it.
  virtual void established(const Headers& headers) { (void)headers; }
};

// A transport's last word: drops `handlers`, then reports `closed` once when the connection was
// open. The handler is moved out first, as it may destroy the transport that held them.
inline void drop_handlers_reporting_closed(Transport::Handlers& handlers, bool was_open,
                                           const std::string& reason) {
  std::function<void(const std::string& reason)> closed;
  if (was_open) closed = std::move(handlers.closed);
  handlers = Transport::Handlers{};
  if (closed) closed(reason);
}

}  // namespace toolhost::jsonrpc
