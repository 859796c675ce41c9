#pragma once
// Turns a parsed tool call into a job, or says why policy refuses it (SPEC 7).

#include <uv.h>

#include <cstdint>
#include <string>

#include "core/config.h"
#include "core/result.h"
#include "core/tool_call.h"
#include "jobs/types.h"
#include "tools/editor.h"
#include "tools/remote.h"

namespace toolhost::tools {

// Where a call runs.
struct RunContext {
  const core::Config& config;
  std::string root;           // the project root: every path is confined to it
  Editor* editor = nullptr;   // Neovim, for a call from a chat buffer; null in the CLI
  uv_loop_t* loop = nullptr;  // with an editor: where disk work falls back to the threadpool
  int64_t chat_buf = 0;       // the chat buffer the call is in (edit_buffer may edit it)
  // Started by auto-run, not approved by the user: a terminal command runs with git's
  // program-naming settings switched off (git_guard.h).
  bool automatic = false;
  // The MCP servers' tools (the host's); null: there are none (the CLI).
  RemoteTools* remote = nullptr;
};

// The job that runs `call`, or the refusal's reason: an unknown tool, a parameter of the wrong
// type, a `cwd` or `path` outside the root (a `failed` result, SPEC 4). A terminal command or a
// custom `cmd` is a process; the file tools are functions the engine runs off the loop; Lua
// tools and edits of loaded buffers go through the editor; an MCP server's tool is a stream
// function (`remote`), its arguments checked against its schema first.
core::Result<jobs::JobSpec> job_for(const core::ToolCall& call, const RunContext& context);

// A model-supplied timeout: clamped to max_timeout_ms, and ≤ 0 means max_timeout_ms (only
// the user's config can switch the timeout off).
uint64_t clamp_model_timeout(const nlohmann::json& value, uint64_t max_timeout_ms);

}  // namespace toolhost::tools
