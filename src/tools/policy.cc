#include "tools/policy.h"

#include <algorithm>
#include <optional>

#include "sandbox/sandbox.h"
#include "tools/bulk_delete.h"
#include "tools/shell_policy.h"
#include "tools/vcs_paths.h"

namespace toolhost::tools {
namespace {

using Verdict = Approval::Verdict;

constexpr const char* kReadOnly[] = {"read_file", "list_directory", "search_files", "get_quickfix",
                                   "get_diagnostics"};
constexpr const char* kEdits[] = {"create_or_replace_file", "replace_in_file", "insert_into_file",
                                  "edit_buffer"};
constexpr const char* kFileMoves[] = {"delete_file", "move_file", "copy_file"};

template <size_t N>
bool one_of(const std::string& name, const char* const (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Unless set (the tests), what the kernel offers: probed on first need, a few milliseconds once.
std::optional<SandboxState>& state_slot() {
  static std::optional<SandboxState> current;
  return current;
}

SandboxState& state() {
  auto& slot = state_slot();
  if (!slot) {
    const sandbox::Availability& kernel = sandbox::probe();
    slot = SandboxState{kernel.available, kernel.reason};
  }
  return *slot;
}

const core::CustomTool* custom_tool(const core::Config& config, const std::string& name) {
  for (const auto& custom : config.tools) {
    if (custom.name == name) return &custom;
  }
  return nullptr;
}

bool sandbox_on(const core::Config& config) {
  return config.sandbox.mode == core::SandboxMode::Auto && state().available;
}

// The allow-list rule's decision for a terminal command (nullopt: no command string).
std::optional<ShellDecision> shell_rule(const core::ToolCall& call, const core::Config& config,
                                        const std::string& root, std::string& command) {
  auto found = call.params.find("command");
  if (found == call.params.end() || !found->is_string()) return std::nullopt;
  command = found->get<std::string>();
  static const std::vector<core::AllowEntry> defaults = default_allow_list();
  const auto& allow = config.allow_commands ? *config.allow_commands : defaults;
  return shell_decision(command, allow, root);
}

// A terminal command with the sandbox on: it runs sandboxed unless it deletes in bulk or its
// entry keeps it outside.
Approval sandboxed_shell(const std::string& command, const ShellDecision& rule) {
  if (rule.auto_run && rule.entry && !rule.entry->sandbox) {
    return {Verdict::Yes, rule.reason + " (sandbox = false: outside the sandbox)"};
  }
  if (auto bulk = bulk_delete_reason(command)) return {Verdict::No, *bulk};
  const bool network = rule.auto_run && rule.entry && rule.entry->network;
  std::string reason = rule.auto_run ? rule.reason + ", in the sandbox" : "in the sandbox";
  if (network) reason += " with the network";
  return {Verdict::Yes, reason, /*sandboxed=*/true, network};
}

}  // namespace

void set_sandbox_state(SandboxState state) { state_slot() = std::move(state); }

const SandboxState& sandbox_state() { return state(); }

SandboxNeed sandbox_need(const core::ToolCall& call, const core::Config& config,
                         const std::string& root) {
  if (!sandbox_on(config)) return {};
  if (call.tool == "run_terminal_command") {
    std::string command;
    auto rule = shell_rule(call, config, root, command);
    if (!rule) return {};
    if (rule->auto_run && rule->entry && !rule->entry->sandbox) return {};
    return {true, rule->auto_run && rule->entry && rule->entry->network};
  }
  const core::CustomTool* custom = custom_tool(config, call.tool);
  if (custom && !custom->fn && custom->sandbox) return {true, false};
  return {};
}

bool writes_files(const std::string& tool) {
  return one_of(tool, kEdits) || one_of(tool, kFileMoves);
}

Approval auto_accept(const core::ToolCall& call, const core::Config& config,
                     const std::string& root) {
  const std::string& tool = call.tool;
  if (one_of(tool, kReadOnly)) return {Verdict::Yes, tool + " only reads"};
  if (one_of(tool, kEdits)) {
    if (!config.auto_accept_edits) {
      return {Verdict::No, tool + " edits files (auto_accept_edits is off)"};
    }
    // Whatever auto_accept_edits says: such an edit could make `git status` run a program.
    if (auto reason = vcs_edit_reason(call.params, root)) return {Verdict::No, *reason};
    return {Verdict::Yes, "auto_accept_edits allows edits"};
  }
  if (one_of(tool, kFileMoves)) return {Verdict::No, tool + " always needs approval"};
  if (tool == "run_terminal_command") {
    std::string command;
    auto rule = shell_rule(call, config, root, command);
    if (!rule) return {Verdict::No, "the command is not a string"};
    if (sandbox_on(config)) return sandboxed_shell(command, *rule);
    return {rule->auto_run ? Verdict::Yes : Verdict::No, rule->reason};
  }
  if (const core::CustomTool* custom = custom_tool(config, tool)) {
    const bool sandboxed = sandbox_on(config) && !custom->fn && custom->sandbox;
    switch (custom->auto_accept) {
      case core::CustomTool::AutoAccept::Yes:
        return {Verdict::Yes,
                "tools." + tool + ".auto_accept is true" + (sandboxed ? ", in the sandbox" : ""),
                sandboxed};
      case core::CustomTool::AutoAccept::Function:
        return {Verdict::AskLua, "tools." + tool + ".auto_accept decides", sandboxed};
      case core::CustomTool::AutoAccept::No:
        if (sandboxed) return {Verdict::Yes, "a custom tool, in the sandbox", true};
        return {Verdict::No, tool + " is a custom tool without auto_accept"};
    }
  }
  return {Verdict::No, "unknown tool `" + tool + "`"};
}

Approval auto_accept(const core::ToolCall& call, const core::Config& config,
                     const std::string& root, const RemoteTools* remote) {
  const core::ToolSpec* spec = remote ? remote->find(call.tool) : nullptr;
  if (!spec || !spec->remote) return auto_accept(call, config, root);
  const core::RemoteTool& tool = *spec->remote;
  const std::string origin = "a tool of the MCP server " + tool.server;
  if (!tool.auto_approve) {
    return {Verdict::No, origin + (tool.destructive ? ", which says it may be destructive" : "") +
                             " (mcp.servers." + tool.server + ".auto_approve does not name it)"};
  }
  if (tool.approved_by_name) {
    auto approved = remote->approved_fingerprint(tool);
    if (approved && *approved != tool.fingerprint) {
      return {Verdict::No, origin +
                               " whose description or input schema changed since it was "
                               "approved by name: approve it again"};
    }
    return {Verdict::Yes, origin + ", named by its auto_approve"};
  }
  // auto_approve = true, or trusted and read-only by its own hint.
  return {Verdict::Yes, origin + ", approved by its spec"};
}

}  // namespace toolhost::tools
