#pragma once
// The MCP servers a user configured, supervised (SPEC 13.1, 13.3): each starts on first need
// (SupervisedServer), its tools join toolhost's tool table as `{server}__{tool}` (cached by
// spec hash, so buffers parse before a server answers), and a call of one runs as a job's
// stream function: `tools/call` with a progress token, progress and the server's log messages
// as the job's output lines, the result's text as its output, an error as its failure, and
// cancel or timeout sending `notifications/cancelled`. Nothing outside src/mcp learns MCP: the
// host gets tool specs, job functions and a status table.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/tool_table.h"
#include "jobs/types.h"
#include "mcp/server_config.h"
#include "mcp/supervised_server.h"

namespace toolhost::mcp {

class Servers {
 public:
  using Options = SupervisionOptions;
  struct Events {
    // The tools of some server changed (listed for the first time, list_changed, a new
    // configuration): tool_specs() differs.
    std::function<void()> tools_changed;
  };

  Servers(uv_loop_t* loop, Options options, Events events);
  ~Servers();  // call shutdown() first: a server still running is killed
  Servers(const Servers&) = delete;
  Servers& operator=(const Servers&) = delete;

  // The configured servers from now on, in name order: one whose spec is unchanged keeps
  // running (its policy keys apply at once); the others stop. Cached tools are read here; a
  // server without any starts at once, to list them.
  void configure(std::vector<ServerConfig> servers);
  bool empty() const { return servers_.empty(); }

  // The tool table entries of every server's tools (listed, or cached from an earlier run).
  std::vector<core::ToolSpec> tool_specs() const;
  // A call of `tool` (an entry of tool_specs()) as a job's stream function, or why it cannot
  // run: an unknown server, or arguments that do not fit the input schema (nothing is sent).
  core::Result<jobs::StreamFunction> call(const core::RemoteTool& tool, nlohmann::json arguments);
  // The call's own timeout (the server's `timeout_ms`); 0 for an unknown server.
  uint64_t timeout_ms(const std::string& server) const;

  // One entry per server: name, transport, state, protocol, tools (each as MCP lists it, with
  // `tool`, its own name, and `name`, the table's, null when disabled), pid, error,
  // retry_in_ms, startup_timeout_ms, command, sign_in_url (a sign-in waits on it: "sign-in
  // needed"); `log` (its last lines) with `with_log`.
  nlohmann::json status(bool with_log) const;
  // Starts a server (or every one when `name` is empty) that is not running yet: :checkhealth
  // and the :ToolMcp view list what it offers. Errors name an unknown server.
  core::Result<bool> start(const std::string& name);
  core::Result<bool> restart(const std::string& name);
  // An HTTP server's sign-in (:ToolMcp login): `done` once it ended, with why it failed; an
  // unknown server or one without sign-in fails at once.
  void login(const std::string& name, std::function<void(std::optional<std::string>)> done);
  // Forgets its tokens (:ToolMcp logout).
  core::Result<bool> logout(const std::string& name);
  core::Result<bool> stop(const std::string& name);
  // Stops every server (stdin closed, then TERM, then KILL); `done` once all are gone. Those
  // still there after `kill_after_ms` (0: no limit) get SIGKILL at once: the host must be gone
  // within a second of Neovim's exit, and no server may outlive it.
  void shutdown(std::function<void()> done, uint64_t kill_after_ms = 0);

 private:
  SupervisedServer* find(const std::string& name) const;
  void stop_and_drop(std::unique_ptr<SupervisedServer> server);

  uv_loop_t* loop_;
  Options options_;
  Events events_;
  std::vector<std::unique_ptr<SupervisedServer>> servers_;
  // Servers no longer configured, until their processes are gone.
  std::vector<std::unique_ptr<SupervisedServer>> leaving_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::mcp
