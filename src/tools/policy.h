#pragma once
// Which calls auto-run may start without asking (SPEC 7). `:ToolRun` and `toolhost run --yes`
// never ask: they are the user's own approval. Tool-call text is written by a model, so
// anything not known to be harmless needs approval.

#include <string>

#include "core/config.h"
#include "core/tool_call.h"
#include "tools/remote.h"

namespace toolhost::tools {

struct Approval {
  enum class Verdict { Yes, No, AskLua };  // AskLua: a custom tool's auto_accept function decides
  Verdict verdict = Verdict::No;
  std::string reason;  // the rule that allowed or held the call, for the user
  // Auto-run may start it only in the kernel sandbox (issue #38), with the network when its
  // allow-list entry says `network = true`.
  bool sandboxed = false;
  bool network = false;
  bool auto_run() const { return verdict == Verdict::Yes; }
};

// Whether the kernel sandbox can run a command (sandbox::probe(), which the host and the CLI
// read once at start and set here; unset: unavailable, and the allow-list rule alone decides).
struct SandboxState {
  bool available = false;
  std::string reason;  // why not, for the notice
};
void set_sandbox_state(SandboxState state);
const SandboxState& sandbox_state();

// How a call that auto-run starts runs: in the sandbox (and with the network) or not. For a
// terminal command or a custom `cmd` tool when `sandbox = "auto"` and the sandbox is available,
// unless its allow-list entry or tool says `sandbox = false`; never for the other tools.
struct SandboxNeed {
  bool sandboxed = false;
  bool network = false;
};
SandboxNeed sandbox_need(const core::ToolCall& call, const core::Config& config,
                         const std::string& root);

// Read-only tools: yes. Edits (create_or_replace_file, replace_in_file, edit_buffer): only with
// auto_accept_edits, and never one whose path parameter reaches a protected place
// (vcs_paths.h). delete_file, move_file, copy_file: never. The shell: with the sandbox (config
// `sandbox = "auto"` and available), yes, sandboxed, on or off the allow-list, but never a
// command that deletes or overwrites in bulk (bulk_delete.h); an allow-list entry with
// `sandbox = false` keeps the allow-list rule alone, as does `sandbox = "off"` or a kernel
// without the sandbox. Custom tools: their auto_accept, and a `cmd` tool without it runs
// sandboxed as a terminal command does. Unknown tools: never.
Approval auto_accept(const core::ToolCall& call, const core::Config& config,
                     const std::string& root);

// The same, and an MCP server's tool (found through `remote`) needs approval unless its
// server's `auto_approve` names it (or is true), or the server is `trusted` and the tool says
// readOnlyHint; one approved by name whose description or schema changed since it was first
// approved waits again. The reason names the server, and says when the tool may destroy.
Approval auto_accept(const core::ToolCall& call, const core::Config& config,
                     const std::string& root, const RemoteTools* remote);

// Whether a tool changes files (:ToolRunAll runs such a call alone, in order).
bool writes_files(const std::string& tool);

}  // namespace toolhost::tools
