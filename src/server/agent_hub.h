#pragma once
// Outside agents in Neovim (SPEC 13.5): the host listens on a unix socket for the
// `toolhost mcp serve` processes that agents start, names its project root in the registry
// (mcp/host_registry.h), and serves each connection as an MCP server whose calls become blocks
// in the agent's buffer `toolhost://agent/{client}`. From there a call is a chat block like any
// other: policy runs it or holds it for :ToolRun / :ToolReject, its output streams in the
// buffer, and its result goes back to the agent. A session tells the hub of its calls' output
// and ends (session::CallObserver).

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agents/call_message.h"
#include "core/config.h"
#include "core/result.h"
#include "jsonrpc/transport.h"
#include "jsonrpc/unix_listener.h"
#include "mcp/tool.h"
#include "nvim/api.h"
#include "session/session.h"

namespace toolhost::server {

class AgentBackend;

class AgentHub : public session::CallObserver {
 public:
  struct Env {
    uv_loop_t* loop = nullptr;
    nvim::Api* api = nullptr;
    const core::Config* config = nullptr;  // the host's, as setup() last set it
    std::string state_dir;
    std::string version;
    std::function<session::Session*(int64_t buf)> session;
    std::function<void()> after_start;  // a call may have started a job: the host's ticker
  };
  // Where Lua put an agent's message: its buffer and the message's first row.
  using Appended = std::function<void(const std::string& error, int64_t buf, int row)>;

  explicit AgentHub(Env env);
  ~AgentHub() override;
  AgentHub(const AgentHub&) = delete;
  AgentHub& operator=(const AgentHub&) = delete;

  // Listens for agents (once) and names `root` as this host's project in the registry; the
  // socket's path, or why agents cannot reach this host.
  core::Result<std::string> serve(const std::string& root);
  // A connection from an agent's `toolhost mcp serve` (the listener's, or a test's).
  void accept(std::unique_ptr<jsonrpc::Transport> transport);
  size_t connections() const { return connections_.size(); }
  // Stops listening, leaves the registry, and ends every connection (their calls canceled).
  void close();
  // The buffer is no longer watched (wiped, :ToolDetach): its calls that wait get an error
  // result; running ones still answer when their jobs end.
  void forget(int64_t buf);

  // --- for AgentBackend ---
  const core::Config& config() const { return *env_.config; }
  // The tools agents see, those of the configuration: listed once per setup() (per call, the
  // list cost the host as much as the rest of its work for a relayed read_file).
  const std::vector<mcp::Tool>& tools();
  // setup() set a new configuration: its tools are listed anew.
  void config_changed() { tools_.reset(); }
  const std::string& root() const { return root_; }
  session::Session* session(int64_t buf) const { return env_.session(buf); }
  void after_start() const {
    if (env_.after_start) env_.after_start();
  }
  // Asks Lua to append `message` to the agent's buffer (made and attached when new), to notify
  // and open it when the call needs approval.
  void append(const std::string& client, const agents::CallMessage& message, bool needs_approval,
              Appended done);
  // The session of `client`'s buffer when it is read and watched: a call can start there
  // before its block is written (Session::agent_call_ahead).
  session::Session* agent_session(const std::string& client) const;
  // Expires with the hub: an answer from Neovim may come after it (and its sessions) are gone.
  std::weak_ptr<bool> alive() const { return alive_; }
  void bind(int64_t buf, const std::string& call_id, AgentBackend* backend, uint64_t id);
  void unbind(int64_t buf, const std::string& call_id);

  // --- session::CallObserver ---
  void call_output(int64_t buf, const std::string& call_id,
                   const std::vector<std::string>& lines) override;
  void call_ended(int64_t buf, const std::string& call_id, const jobs::JobInfo& job,
                  const std::vector<std::string>& body) override;
  void call_renamed(int64_t buf, const std::string& from, const std::string& to) override;

 private:
  struct Connection;

  void closed(Connection* connection);
  void sweep();

  Env env_;
  std::string root_;
  std::string registry_dir_;
  std::unique_ptr<jsonrpc::UnixListener> listener_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<std::unique_ptr<Connection>> closing_;  // destroyed on the next loop turn
  uv_timer_t* sweeper_;                               // freed by its close callback
  std::map<std::pair<int64_t, std::string>, std::pair<AgentBackend*, uint64_t>> bound_;
  // client -> the buffer Lua last appended to; shared with the appends' answers, which may
  // come after the hub is gone.
  std::shared_ptr<std::map<std::string, int64_t>> buffers_ =
      std::make_shared<std::map<std::string, int64_t>>();
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::optional<std::vector<mcp::Tool>> tools_;
};

}  // namespace toolhost::server
