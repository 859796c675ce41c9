#pragma once
// An MCP server as a child process on stdio (SPEC 13.3): started with its command, arguments,
// environment additions and directory, in a session and process group of its own (jobs'
// spawn), its stdin and stdout given to a Client as a Transport, its stderr kept: every line to
// a log callback, the last ones for error messages. When the process dies, the transport
// reports the connection closed only once the exit status is known, so a running call fails
// saying how the server ended and what it last wrote to stderr.
//
// Shutdown (stop()): stdin is closed, the server gets 2 s to exit, then SIGTERM to its group,
// then 2 s more and SIGKILL. Destroying a StdioServer whose process runs SIGKILLs the group.
// The caller must ignore SIGPIPE: a server that died is an EPIPE on its stdin, not a death.

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jsonrpc/transport.h"

namespace toolhost::mcp {

struct StdioSpec {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to toolhost's environment
  std::string cwd;                                       // empty: toolhost's
};

// How long shutdown waits at each step (and for stderr after the exit).
struct StdioTiming {
  uint64_t stdin_grace_ms = 2000;  // stdin closed -> SIGTERM
  uint64_t term_grace_ms = 2000;   // SIGTERM -> SIGKILL
  // After the exit, how long a descendant may keep stderr open before the end is reported.
  uint64_t linger_ms = 200;
};

class StdioServer {
 public:
  struct Events {
    std::function<void(const std::string& line)> stderr_line;
    // The process is gone and its stderr read: how it ended ("exited with status 1").
    std::function<void(const std::string& how)> exited;
  };

  using Timing = StdioTiming;

  static constexpr size_t kTailLines = 20;
  static constexpr size_t kMaxLineBytes = 4096;  // a longer stderr line is cut

  StdioServer(uv_loop_t* loop, StdioSpec spec, Events events = {}, Timing timing = {});
  ~StdioServer();
  StdioServer(const StdioServer&) = delete;
  StdioServer& operator=(const StdioServer&) = delete;

  // Spawns the server. The transport speaks to its stdin and stdout; null, with the reason in
  // `error`, when it could not start. Once only.
  std::unique_ptr<jsonrpc::Transport> start(std::string& error);
  // Closes stdin, then TERM, then KILL (see above); `done` once the process is gone (at once
  // when it is gone already or never started).
  void stop(std::function<void()> done);

  bool running() const;
  pid_t pid() const;
  // The last kTailLines lines of stderr, oldest first.
  std::deque<std::string> stderr_tail() const;
  // How it ended; empty while it runs.
  std::string how_it_ended() const;

 private:
  struct State;
  class PipeTransport;

  StdioSpec spec_;
  std::shared_ptr<State> state_;  // its libuv handles outlive this object until closed
};

}  // namespace toolhost::mcp
