#pragma once
// `toolhost mcp serve` when a Neovim host serves the project (SPEC 13.5): a line relay between
// the agent's stdio and the host's unix socket. Nothing is parsed: each complete line goes
// through as it came, with its newline; the host's MCP server answers what it receives.
// Carriage returns before a newline and blank lines are dropped, as every JSON-RPC reader here
// drops them, and a line over the cap is dropped (and logged) without being buffered.
//
// When the agent closes its input, the socket's write side is shut down and the relay waits
// for the host to finish answering and close; when the host closes, what it sent is written
// out and the relay ends. The caller must ignore SIGPIPE (a vanished agent is an EPIPE).
//
// With `host_gone` set, a host that goes while the agent is still there does not end the
// agent's session: the relay peeks at each line's id and method (message_peek) to know what the
// host still owes, answers the calls it owed as failed (they may have run in part: running them
// again could repeat what they did), and hands the agent over with what the next server needs to
// go on: the handshake the host answered, and the requests to answer again.

#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "jsonrpc/line_splitter.h"
#include "mcp/tool.h"

namespace toolhost::mcp {

class Relay {
 public:
  // What a server that takes the agent over from a host that went away needs.
  struct Handover {
    std::string reason;  // why the host went
    // The agent's `initialize` params, when the host answered them; null otherwise (then the
    // initialize request itself is in `unread`).
    Json initialize;
    // Requests the host never answered other than calls (ping, tools/list, …), each with its newline,
    // then whatever the agent had sent of its next line: the next server reads these first.
    std::string unread;
    size_t calls_failed = 0;  // tools/call the host owed, answered to the agent as failed
  };

  struct Options {
    size_t max_line = jsonrpc::kMaxMessageBytes;
    // Dropped lines, and a read error on the agent's input (taken as its end).
    std::function<void(const std::string& message)> log;
    // Called instead of `done`, after every descriptor is closed, when the host went away while
    // the agent was still there; the caller then serves the agent on its own descriptors.
    std::function<void(Handover)> host_gone;
  };
  // Called once, after every descriptor is closed, with why the relay ended.
  using Done = std::function<void(const std::string& reason)>;

  // Connects to `socket_path`, then owns `in_fd` and `out_fd` (they may be one descriptor) and
  // starts pumping. Null with the reason in `error` when the connection or the descriptors
  // fail; a failed connect leaves the descriptors untouched, so the caller can serve headless.
  static std::unique_ptr<Relay> start(uv_loop_t* loop, int in_fd, int out_fd,
                                      const std::string& socket_path, Done done, std::string& error,
                                      Options options);
  static std::unique_ptr<Relay> start(uv_loop_t* loop, int in_fd, int out_fd,
                                      const std::string& socket_path, Done done,
                                      std::string& error) {
    return start(loop, in_fd, out_fd, socket_path, std::move(done), error, Options{});
  }

  // Stops at once (queued output is dropped) without calling done.
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  bool finished() const;
  // The host is not read while this much waits for a slow agent (for tests and diagnostics).
  bool waiting_for_agent() const;
  static constexpr size_t kHighWater = 4 * 1024 * 1024;

 private:
  struct State;
  explicit Relay(State* state) : state_(state) {}
  State* state_;  // frees itself once every handle is closed
};

}  // namespace toolhost::mcp
