#pragma once
// The host: the RPC method table that lua/toolhost calls, buffer events from Neovim, one
// Session per attached buffer, the job engine and the feedback batcher (SPEC 2).

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/tool_table.h"
#include "jobs/engine.h"
#include "jobs/held_work.h"
#include "mcp/project_trust.h"
#include "nvim/api.h"
#include "quickfix/lists.h"
#include "rpc/peer.h"
#include "server/agent_hub.h"
#include "server/buffer_reads.h"
#include "server/elicitations.h"
#include "server/lua_tools.h"
#include "server/mcp_tools.h"
#include "server/methods.h"
#include "session/feedback.h"
#include "session/session.h"

namespace toolhost::server {

struct HostOptions {
  std::string version;
  std::string state_dir;
  std::string cache_dir;
  std::string instance;  // how Lua knows this host's batches from a dead one's
  // The state dir `toolhost mcp serve` derives from the environment ($XDG_STATE_HOME/nvim/
  // toolhost), where the agents' registry falls back to without a runtime directory. Not
  // --state-dir: Neovim 0.7 passes stdpath("data") there (NVIM_APPNAME another name), and the
  // agents would look for this host elsewhere. Empty: state_dir.
  std::string registry_state_dir;
};

class Host {
 public:
  Host(uv_loop_t* loop, rpc::Peer& peer, HostOptions options);
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Serves the methods and asks Neovim who it is.
  void start();
  // Ends every job (SIGTERM, SIGKILL after `grace_ms`); `done` runs when they are gone and
  // the host's handles are closed.
  void shutdown(uint64_t grace_ms, std::function<void()> done);

 private:
  using Reply = MethodTable::Reply;
  // The answer of a method that has none to give.
  static nlohmann::json ok() { return nullptr; }

  // The methods, one each (args: one table).
  Reply ping(const nlohmann::json& args);
  // The kernel sandbox as this host sees it (:checkhealth), and the notice when it is wanted
  // and unavailable, once per host (host_sandbox.cc).
  Reply sandbox_status(const nlohmann::json& args);
  void announce_sandbox();
  Reply setup(const nlohmann::json& args);
  Reply attach(const nlohmann::json& args);
  Reply detach(const nlohmann::json& args);
  Reply run(const nlohmann::json& args);
  Reply cancel(const nlohmann::json& args);
  Reply reject(const nlohmann::json& args);
  Reply run_all(const nlohmann::json& args);
  Reply run_all_plan(const nlohmann::json& args);
  Reply assistant_done(const nlohmann::json& args);
  Reply idle(const nlohmann::json& args);
  Reply rerun(const nlohmann::json& args);
  Reply submit(const nlohmann::json& args);
  Reply interrupt_host(const nlohmann::json& args);
  Reply mirror(const nlohmann::json& args);
  // {root}: agents' `toolhost mcp serve` may reach this host for that project (host_agents.cc).
  Reply serve_agents(const nlohmann::json& args);
  // --- MCP servers (host_mcp.cc) ---
  // The toolhost.mcp_* methods added to methods_.
  void add_mcp_methods();
  // {start?, log?} -> {servers = [{name, transport, state, protocol, tools, pid, error,
  // retry_in_ms, startup_timeout_ms, command, log?}]}
  Reply mcp_servers(const nlohmann::json& args);
  Reply mcp_restart(const nlohmann::json& args);  // {name}
  Reply mcp_stop(const nlohmann::json& args);     // {name}
  // {} -> {root, pending = [{path, digest, changed, servers, prompt}]}: the project's MCP files
  // not accepted yet, read again now (what the prompt shows is what accept() checks).
  Reply mcp_pending(const nlohmann::json& args);
  // {path, digest}: records the acceptance, then the servers anew (only what changed restarts).
  Reply mcp_accept(const nlohmann::json& args);
  // {root}: the project whose .mcp.json and .vscode/mcp.json count (Lua: before setup and on
  // DirChanged); before it, the host's cwd.
  Reply mcp_project(const nlohmann::json& args);
  // setup()'s `mcp` table: the servers from now on (with the config files, load_mcp).
  void configure_mcp(const nlohmann::json& options);
  // {id, action, content?}: Lua's answer to a server's question (server/elicitations.h).
  Reply mcp_elicited(const nlohmann::json& args);
  // :ToolMcp login|logout {name}: a sign-in started (its end is notified), or tokens forgotten.
  Reply mcp_login(const nlohmann::json& args);
  Reply mcp_logout(const nlohmann::json& args);
  // Tells the user a server waits for its sign-in, and opens the URL (lua/toolhost/mcp_signin.lua).
  void send_sign_in(const std::string& server, const std::string& url, const std::string& host);
  // Puts a server's question to Neovim (lua/toolhost/mcp_elicit.lua), without waiting.
  void send_question(const nlohmann::json& question, std::function<void()> failed);
  // setup()'s servers, the config files and the acceptances read again and configured; Lua
  // hears of project files newly pending. The files' warnings are said when the previous load
  // did not have them (each reload reads them again); setup()'s own errors again each time
  // `setup_ran`.
  void load_mcp(bool setup_ran);
  // The tool table anew (built-in, custom, the servers' tools); when it changed, the attached
  // buffers parse again and Lua hears ToolhostToolsChanged.
  void rebuild_tools();
  // The attached, ready session of args.buf, with `action` run once it has read its buffer.
  Reply with_session(const nlohmann::json& args, std::function<void(session::Session&)> action);

  void serve(const std::string& method);
  // Answers a `toolhost.call` {token, method, args} with nvim_exec_lua(resolve).
  // One about an attached buffer waits until the host has read it.
  void bridge(const nlohmann::json& args);
  void answer(const nlohmann::json& args);
  // --- attached buffers (host_buffers.cc) ---
  session::Session* session(int64_t buf);
  // BufferReads read the buffer whole: the session parses it.
  void loaded(int64_t buf, std::vector<std::string> lines);
  void attach_failed(int64_t buf, const std::string& error);
  void forget(int64_t buf);
  void send_batch(nlohmann::json batch);
  void update_ticker();

  uv_loop_t* loop_;
  rpc::Peer& peer_;
  HostOptions options_;
  nvim::Api api_;
  nvim::ApiInfo info_;
  core::Config config_;
  core::ToolTable tools_;
  jobs::Engine engine_;
  // A finished job's feedback leaves first; its history line and handles' closes follow.
  jobs::HeldWorkRelease held_work_;
  session::Feedback feedback_;
  LuaTools lua_tools_;
  MethodTable methods_;
  BufferReads reads_;
  AgentHub agents_;
  Elicitations elicitations_;  // before mcp_: its servers' questions wait here
  McpTools mcp_;
  quickfix::Lists quickfix_;  // build and test output into quickfix lists (issue #39)
  nlohmann::json mcp_options_;   // setup()'s `mcp`
  bool mcp_configured_ = false;  // setup() ran
  bool sandbox_announced_ = false;
  std::string mcp_root_;
  mcp::Places mcp_places_;
  std::vector<mcp::PendingFile> mcp_pending_;
  std::set<std::string> mcp_said_;  // the warnings and errors of load_mcp()'s last load
  uv_timer_t ticker_{};
  std::map<int64_t, std::unique_ptr<session::Session>> sessions_;
  std::set<int64_t> own_detaches_;  // buffers whose nvim_buf_detach is under way
  bool stopping_ = false;           // shutdown() ran: no more batches
};

}  // namespace toolhost::server
