#include "tools/policy.h"

#include <algorithm>

#include "tools/shell_policy.h"
#include "tools/vcs_paths.h"

namespace toolhost::tools {
namespace {

using Verdict = Approval::Verdict;

constexpr const char* kReadOnly[] = {"read_file", "list_directory", "search_files"};
constexpr const char* kEdits[] = {"create_or_replace_file", "replace_in_file", "insert_into_file",
                                  "edit_buffer"};
constexpr const char* kFileMoves[] = {"delete_file", "move_file", "copy_file"};

template <size_t N>
bool one_of(const std::string& name, const char* const (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

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
    auto command = call.params.find("command");
    if (command == call.params.end() || !command->is_string()) {
      return {Verdict::No, "the command is not a string"};
    }
    static const std::vector<core::AllowEntry> defaults = default_allow_list();
    const auto& allow = config.allow_commands ? *config.allow_commands : defaults;
    ShellDecision decision = shell_decision(command->get<std::string>(), allow, root);
    return {decision.auto_run ? Verdict::Yes : Verdict::No, decision.reason};
  }
  for (const auto& custom : config.tools) {
    if (custom.name != tool) continue;
    switch (custom.auto_accept) {
      case core::CustomTool::AutoAccept::Yes:
        return {Verdict::Yes, "tools." + tool + ".auto_accept is true"};
      case core::CustomTool::AutoAccept::Function:
        return {Verdict::AskLua, "tools." + tool + ".auto_accept decides"};
      case core::CustomTool::AutoAccept::No:
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
