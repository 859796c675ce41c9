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
  bool auto_run() const { return verdict == Verdict::Yes; }
};

// Read-only tools: yes. Edits (create_or_replace_file, replace_in_file, edit_buffer): only with
// auto_accept_edits, and never one whose path parameter reaches a VCS control place
// (vcs_paths.h). delete_file, move_file, copy_file: never. The shell: the allow-list rule.
// Custom tools: their auto_accept. Unknown tools: never.
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
