#pragma once
// One configured MCP server under supervision (SPEC 13.3): started on first need, given
// `startup_timeout_ms` for its handshake, its tools listed (and cached by its spec's hash, read
// back at construction so buffers parse before it answers), refreshed on `list_changed`. A
// crash fails its running calls with the exit status and the last stderr lines (the Client's
// connection ends with them); the next need starts it again, after a backoff that doubles from
// 1 s to 30 s while it keeps failing to start. stop() closes stdin, then TERM, then KILL; an
// HTTP server (`url`) has no process: its connection is opened the same way (connect_http) and
// closing it ends the session with a DELETE.

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mcp/client.h"
#include "mcp/oauth_authorizer.h"
#include "mcp/server_config.h"
#include "mcp/stdio_server.h"

namespace toolhost::mcp {

// A question of server `server` for the user (mcp/elicitation.h's Elicit, with its name).
using ServerElicit = std::function<void(const std::string& server, const ElicitationRequest&,
                                        std::function<void(ElicitationAnswer)> answer)>;

// Server `server` waits for its sign-in at `url`; `host` is the authorization server's.
using ServerSignIn =
    std::function<void(const std::string& server, const std::string& url, const std::string& host)>;

struct SupervisionOptions {
  std::string version;    // toolhost's, in the handshake
  std::string state_dir;  // the tool cache ({state_dir}/mcp); empty: none
  std::string cache_dir;  // images and audio of results ({cache_dir}/mcp); empty: not saved
  StdioTiming timing;
  uint64_t backoff_initial_ms = 1000;
  uint64_t backoff_max_ms = 30'000;
  // Set: the servers' clients declare the `elicitation` capability and their questions go here.
  ServerElicit elicit;
  // A server waits for its sign-in at `url` (the authorization server is `host`): tell the user
  // and open it (lua/toolhost/mcp_signin.lua). Its tokens go to {state_dir}/mcp-oauth.
  ServerSignIn sign_in;
};

class SupervisedServer {
 public:
  enum class State { kStopped, kStarting, kReady, kFailed, kDisabled };
  using Ready = std::function<void(std::optional<std::string> error)>;
  static constexpr size_t kLogLines = 200;

  SupervisedServer(uv_loop_t* loop, ServerConfig config, const SupervisionOptions& options,
                   std::function<void()> tools_changed);
  ~SupervisedServer();  // a process still running is killed (StdioServer)
  SupervisedServer(const SupervisedServer&) = delete;
  SupervisedServer& operator=(const SupervisedServer&) = delete;

  const ServerConfig& config() const { return config_; }
  // The tools it listed last (this run, or a run before: the cache).
  const std::vector<Tool>& tools() const { return tools_; }
  // Whether it ever listed its tools (this run, or one before: the cache).
  bool tools_known() const { return tools_known_; }
  State state() const { return state_; }
  static const char* state_name(State state);
  const std::string& last_error() const { return last_error_; }
  const std::string& protocol() const { return protocol_; }
  pid_t pid() const;
  // When a failed server may start again (its backoff), in ms from now; 0: at once.
  uint64_t retry_in_ms() const;
  // Its stderr lines and log messages, oldest first.
  const std::deque<std::string>& log() const { return log_; }

  // `ready` once it is connected with its tools listed: at once when it is, else after it has
  // started (and waited out its backoff); with the reason when it cannot.
  void when_ready(Ready ready);
  // While ready.
  Client* client() { return state_ == State::kReady ? client_.get() : nullptr; }
  // A new spec with the same hash (how it starts is unchanged): the policy keys apply now.
  void update_policy(const ServerConfig& config) { config_ = config; }
  // Stops it and starts it again at once (no backoff).
  void restart();
  // An HTTP server's sign-in through the browser now (:ToolMcp login); `done` with why not.
  // Signed in, a server that failed starts again.
  void login(std::function<void(std::optional<std::string> error)> done);
  // Forgets its tokens and registration; a running connection starts again without them.
  // False with `error` when the record could not be removed.
  bool logout(std::string& error);
  // The URL a sign-in waits on ("" when none waits): :ToolMcp shows it.
  std::string sign_in_url() const { return authorizer_ ? authorizer_->pending_url() : ""; }
  // A call waiting on this server hears its sign-in, as lines for the call's output (its chat
  // block): "waiting for sign-in to NAME at HOST (...)" when one starts (at once when one is
  // waiting already) and "signed in to NAME" when it ends well; a failed one fails the call.
  // Returns an id for unwatch_sign_in; the watches end with this object.
  using SignInWatch = std::function<void(const std::string& line)>;
  uint64_t watch_sign_in(SignInWatch watch);
  void unwatch_sign_in(uint64_t id) { sign_in_watches_.erase(id); }
  // Stops it; what waited for it fails. `done` once its processes are gone (also those of
  // earlier runs still stopping). It may destroy this object.
  void stop(std::function<void()> done);

 private:
  struct Retired;

  void start_now();
  // A stdio server's process (server_) or an HTTP server's connection; null with `error`.
  std::unique_ptr<jsonrpc::Transport> open_transport(std::string& error);
  // The HTTP server's sign-in, made once and kept across its connections.
  std::shared_ptr<OAuthAuthorizer> authorizer();
  void connected();
  void listed(ToolList list, bool first);
  void fail(const std::string& reason);
  // Ends the process and its client (from the loop, not inside their callbacks).
  void retire(const std::string& reason);
  void flush(const std::optional<std::string>& error);
  void add_log(std::string line);
  void tell_sign_in_watches(const std::string& line);
  std::string waiting_line() const;
  uint64_t backoff_ms() const;

  uv_loop_t* loop_;
  ServerConfig config_;
  SupervisionOptions options_;
  std::function<void()> tools_changed_;
  State state_ = State::kStopped;
  std::vector<Tool> tools_;
  bool tools_known_ = false;
  std::string protocol_;
  std::string last_error_;
  std::deque<std::string> log_;
  std::vector<Ready> waiting_;
  std::unique_ptr<StdioServer> server_;
  std::unique_ptr<Client> client_;
  std::shared_ptr<OAuthAuthorizer> authorizer_;
  std::string sign_in_host_;  // the authorization server's, while a sign-in waits
  std::map<uint64_t, SignInWatch> sign_in_watches_;
  std::vector<std::unique_ptr<Retired>> retired_;  // stopping, or stopped and not yet freed
  std::vector<std::function<void()>> when_all_retired_;
  uv_timer_t* retry_ = nullptr;  // closed by its own callback chain (see the destructor)
  uint64_t failed_at_ms_ = 0;    // uv_now when it last failed
  unsigned failures_ = 0;        // in a row, without a handshake between
  uint64_t generation_ = 0;      // of the process: callbacks of an older one do nothing
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::mcp
