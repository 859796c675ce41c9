#pragma once
// The client side of one MCP server connection (SPEC 13.3) over a jsonrpc::Endpoint: the
// handshake of either era, the tool list, calls with progress, logging, cancellation and
// timeouts. It runs nothing: the transport (a server process's pipes, HTTP) is given.
//
// Each `done` is called exactly once: with the answer, or when the request timed out, the
// connection closed or the Client was destroyed (at once when the connection was closed already).

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/endpoint.h"
#include "mcp/call_outcome.h"
#include "mcp/elicitation.h"
#include "mcp/tool.h"

namespace toolhost::mcp {

// Legacy: the `initialize` handshake (2025-11-25 and earlier); modern: 2026-07-28, with the
// version in every request's `_meta` and no session.
enum class Era { kLegacy, kModern };

struct ServerInfo {
  std::string name;
  std::string version;
  std::string instructions;
  std::string protocol_version;
  Era era = Era::kLegacy;
  std::vector<std::string> supported_versions;  // what server/discover listed
  Json capabilities = Json::object();
};

struct ToolList {
  std::vector<Tool> tools;
  std::optional<std::string> error;
};

struct Progress {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

class Client {
 public:
  struct Options {
    std::string name = "toolhost";
    std::string version;
    uint64_t startup_timeout_ms = 10'000;  // initialize (and the discover probe)
    uint64_t request_timeout_ms = 60'000;  // one tools/list page
    uint64_t call_timeout_ms = 60'000;     // a call, whatever its progress
    size_t max_pages = 100;                // tools/list pages before "paginates forever"
    // protocol = "2026-07-28": probe server/discover first, as that revision's stdio binding
    // says, and fall back to initialize when the server is not modern.
    bool discover_first = false;
  };
  using Log = std::function<void(const std::string& level, const std::string& text)>;
  struct Events {
    std::function<void()> tools_changed;
    Log log;  // the server's log messages that belong to no call
    std::function<void(const std::string& reason)> closed;
    // Answers the server's `elicitation/create` (mcp/elicitation.h); set, the client declares
    // the `elicitation` capability. answer_with_defaults is the headless answer.
    Elicit elicit;
  };
  struct CallEvents {
    std::function<void(const Progress&)> progress;
    Log log;
    std::function<void(CallOutcome)> done;
  };

  Client(uv_loop_t* loop, std::unique_ptr<jsonrpc::Transport> transport, Options options,
         Events events);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool start(std::string& error);
  // The handshake: `initialize` offering the latest legacy revision; when the server answers it
  // with an error, `server/discover` for a modern server (or the other way round with
  // discover_first). `done` gets the reason it failed.
  void connect(std::function<void(std::optional<std::string> error)> done);
  // Every page of `tools/list`, each tool checked; a malformed list is an error, not a part.
  void list_tools(std::function<void(ToolList)> done);
  // Returns the call's number for cancel().
  uint64_t call_tool(const std::string& name, Json arguments, CallEvents events);
  // Tells the server (`notifications/cancelled`) and ends the call now as canceled; its reply,
  // if one comes, is dropped. False when the call is not running.
  bool cancel(uint64_t call, const std::string& reason);
  void close(const std::string& reason) { endpoint_.close(reason); }

  bool connected() const { return connected_; }
  bool is_open() const { return endpoint_.is_open(); }
  const ServerInfo& server() const { return server_; }
  size_t running_calls() const { return calls_.size(); }
  // Replies that came after their request ended (a cancel, a timeout), dropped.
  size_t late_replies() const { return endpoint_.late_replies(); }

 private:
  struct Call {
    Json request_id;
    CallEvents events;
    bool canceled = false;
  };
  using Done = std::function<void(std::optional<std::string>)>;

  // `then_discover`: a failed initialize probes server/discover; else it fails, adding
  // `probe_error` (why the probe found no modern server) to its reason.
  void initialize(const Done& done, bool then_discover, const std::string& probe_error);
  void initialized(const jsonrpc::Reply& reply, const Done& done, bool then_discover,
                   const std::string& probe_error);
  // `next` gets nothing when the server is modern (connected), else why not ("" when it
  // answered without the modern revision).
  void discover(Done next);
  void fetch_page(const std::string& cursor, size_t pages, std::shared_ptr<ToolList> list,
                  std::function<void(ToolList)> done);
  void call_ended(uint64_t id, const jsonrpc::Reply& reply);
  void progress(const jsonrpc::Message& message);
  void log(const jsonrpc::Message& message);
  // What the client can do for the server: `elicitation` only with an Elicit hook.
  Json capabilities() const;
  void elicit(const jsonrpc::Message& message, jsonrpc::Responder responder);
  // The questions no longer wanted forgotten, their `dropped` hooks called.
  void drop_unwanted();
  // `params` with the modern era's `_meta` (the version, who we are) added.
  Json with_meta(Json params) const;
  Json request(const std::string& method, Json params, jsonrpc::Endpoint::ReplyCallback done,
               uint64_t timeout_ms);

  jsonrpc::Transport* transport_;  // owned by endpoint_: told the version the handshake agreed
  jsonrpc::Endpoint endpoint_;
  Options options_;
  Events events_;
  ServerInfo server_;
  bool connected_ = false;
  uint64_t next_call_ = 1;
  std::map<uint64_t, Call> calls_;
  struct Question {
    std::function<bool()> wanted;
    std::vector<std::function<void()>> dropped;
  };
  uint64_t next_question_ = 1;
  std::map<uint64_t, Question> questions_;  // the server's questions not answered yet
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::mcp
