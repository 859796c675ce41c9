#pragma once
// The MCP server side of one agent connection (SPEC 13.5): the handshake, the tool list and
// calls, progress, cancellation and logging level, over a jsonrpc::Endpoint. What runs a call
// is a ToolBackend: toolhost's engine headless, or the relay to a Neovim host; this class
// never runs anything itself.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jsonrpc/endpoint.h"
#include "mcp/tool.h"

namespace toolhost::mcp {

class ToolBackend {
 public:
  struct Call {
    uint64_t id = 0;  // the server's own number for the call, for cancel()
    std::string tool;
    Json arguments;
    std::string client;  // the agent's clientInfo.name
  };
  struct Sink {
    // The last lines of output, each time they change (progress notifications read them).
    std::function<void(const std::string& last_lines)> output;
    // Exactly once. May be called after the Server is gone: then it does nothing.
    std::function<void(CallResult)> done;
  };

  virtual ~ToolBackend() = default;
  virtual std::vector<Tool> tools() = 0;
  virtual void start(Call call, Sink sink) = 0;
  // The agent cancelled the call or went away: stop it. Its done() is no longer read.
  virtual void cancel(uint64_t id, const std::string& reason) = 0;
};

class Server {
 public:
  struct Info {
    std::string name = "toolhost";
    std::string version;
    std::string instructions;
  };

  Server(uv_loop_t* loop, std::unique_ptr<jsonrpc::Transport> transport, ToolBackend& backend,
         Info info);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  bool start(std::string& error);
  // Goes on with a session whose handshake another server answered (a Neovim host that went
  // away from under `toolhost mcp serve`): the agent sends no second `initialize`. Call before
  // start(); false with the reason when the params would not have been accepted.
  bool resume(const Json& initialize_params, std::string& error);
  // The agent went away (or close() was called); its running calls were cancelled.
  void on_closed(std::function<void(const std::string& reason)> callback) {
    on_closed_ = std::move(callback);
  }
  void close(const std::string& reason) { endpoint_.close(reason); }

  bool initialized() const { return initialized_; }
  const std::string& client_name() const { return client_name_; }
  const std::string& protocol_version() const { return protocol_version_; }
  size_t running_calls() const { return calls_.size(); }

  // At most this many progress notifications per call and second (SPEC 13.5).
  static constexpr uint64_t kProgressIntervalMs = 250;

 private:
  struct ActiveCall {
    jsonrpc::Responder responder;
    Json progress_token;  // null: the agent asked for no progress
    std::string last_lines;
    bool unsent = false;  // output changed since the last notification
    uint64_t last_sent_ms = 0;
    uint64_t notifications = 0;
  };

  void handle_initialize(const jsonrpc::Message& message, jsonrpc::Responder responder);
  // Takes the handshake's params: the agreed revision and the agent's name. Empty when
  // accepted, else why not.
  std::string accept_initialize(const Json& params);
  void handle_call(const jsonrpc::Message& message, jsonrpc::Responder responder);
  void handle_cancelled(const jsonrpc::Message& message);
  // Wraps a handler that needs the handshake done first.
  jsonrpc::Endpoint::RequestHandler after_initialize(jsonrpc::Endpoint::RequestHandler handler);
  void output(uint64_t id, const std::string& last_lines);
  void send_progress(ActiveCall& call);
  void flush_progress();
  void finish(uint64_t id, const CallResult& result);
  void closed(const std::string& reason);

  uv_loop_t* loop_;
  jsonrpc::Endpoint endpoint_;
  ToolBackend& backend_;
  Info info_;
  bool initialized_ = false;
  std::string client_name_;
  std::string protocol_version_;
  uint64_t next_call_ = 1;
  std::map<uint64_t, ActiveCall> calls_;
  std::map<std::string, uint64_t> call_of_request_;  // the request id's JSON text -> call
  uv_timer_t* progress_timer_;                       // freed by its close callback
  std::function<void(const std::string&)> on_closed_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::mcp
