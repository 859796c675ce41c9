#include "core/tool_table.h"

#include <algorithm>

namespace toolhost::core {
namespace {

constexpr std::pair<Status, std::string_view> kFailureLabels[] = {
    {Status::TimedOut, "✗ Timed out:"}, {Status::Canceled, "✗ Canceled:"},
    {Status::Rejected, "✗ Rejected:"},  {Status::Interrupted, "✗ Interrupted:"},
    {Status::Failed, "✗ Failed:"},  // last: every other unsuccessful status
};

constexpr std::string_view kCalledLabel = "✓ Called:";

}  // namespace

const ToolSpec* ToolTable::find(std::string_view name_or_alias) const {
  for (const auto& tool : tools) {
    if (tool.name == name_or_alias) return &tool;
    if (std::find(tool.aliases.begin(), tool.aliases.end(), name_or_alias) != tool.aliases.end()) {
      return &tool;
    }
  }
  return nullptr;
}

namespace {

ParamSpec text(std::string name, std::string description, bool required = true) {
  return ParamSpec{std::move(name), {"string"}, std::move(description), required, {}};
}
ParamSpec optional_text(std::string name, std::string description) {
  return text(std::move(name), std::move(description), false);
}
// Only shown to the user, never read by the tool: markup in it is harmless, no parse error.
ParamSpec shown_only(std::string name, std::string description) {
  ParamSpec param = text(std::move(name), std::move(description), false);
  param.shown_only = true;
  return param;
}
ParamSpec number(std::string name, std::string description) {
  return ParamSpec{std::move(name), {"integer"}, std::move(description), false, {}};
}
ParamSpec texts(std::string name, std::string description) {
  return ParamSpec{std::move(name), {"array"}, std::move(description), true, {}};
}

}  // namespace

// SPEC 7: names as llm-sidekick writes them, CodeCompanion's as aliases. The descriptions and
// parameters are what a model reads in `tools()` and MCP's `tools/list`.
ToolTable builtin_tool_table() {
  ToolTable table;
  auto add = [&](std::string name, Effect effect, std::string description,
                 std::vector<ParamSpec> params) -> ToolSpec& {
    ToolSpec spec;
    spec.name = std::move(name);
    spec.effect = effect;
    spec.description = std::move(description);
    for (const auto& param : params) {
      if (param.required) spec.required.push_back(param.name);
      if (param.types == std::vector<std::string>{"string"} && !param.shown_only) {
        spec.text_params.push_back(param.name);
      }
    }
    spec.params = std::move(params);
    table.tools.push_back(std::move(spec));
    return table.tools.back();
  };
  const std::string root_path = "A path relative to the project root";

  ToolSpec& run = add(
      "run_terminal_command", Effect::Runs,
      "Runs a command line with the shell in the project root and returns its exit "
      "code, stdout and stderr. Read-only commands on the allow list run at once; "
      "others wait for the user's approval.",
      {text("command", "The command line"), shown_only("purpose", "Why it runs, shown to the user"),
       optional_text("cwd", "The directory to run in, relative to the root"),
       number("timeout_ms", "Stop it after this many milliseconds")});
  run.aliases = {"cmd_runner", "bash"};
  run.param_aliases = {{"explanation", "purpose"}};

  ToolSpec& read = add("read_file", Effect::Reads, "Reads a text file, with line numbers.",
                       {text("path", root_path), number("start_line", "The first line (1-based)"),
                        number("end_line", "The last line, included")});
  read.aliases = {"read_files"};
  read.param_aliases = {{"file_path", "path"}, {"file_paths", "path"}};
  read.done_label = "✓ Read:";
  read.per_item_param = "path";

  ToolSpec& list =
      add("list_directory", Effect::Reads, "Lists a directory's entries; directories end in `/`.",
          {text("path", root_path),
           ParamSpec{"recursive", {"boolean"}, "Include subdirectories", false, {}},
           number("max_entries", "List at most this many entries")});
  list.aliases = {"list_directory_contents"};
  list.param_aliases = {{"directory_path", "path"}};
  list.done_label = "✓ ls:";

  add("search_files", Effect::Reads,
      "Searches file contents for a regular expression (ripgrep, else grep) and returns "
      "`path:line:text` lines.",
      {text("pattern", "The regular expression"),
       optional_text("path", "The directory or file to search, relative to the root"),
       optional_text("glob", "Only files whose names match this glob")})
      .aliases = {"grep"};

  ToolSpec& write = add("create_or_replace_file", Effect::Writes,
                        "Writes a whole file, creating it and its directories if needed.",
                        {text("path", root_path), text("content", "The file's whole new text")});
  write.aliases = {"write_to_file", "write_file"};
  write.param_aliases = {{"file_path", "path"}, {"contents", "content"}};
  write.done_label = "✓ Wrote:";

  // search[]/replace[] pair up; old_block2/new_block2 … append to them.
  ToolSpec& replace =
      add("replace_in_file", Effect::Writes,
          "Replaces blocks of a file: each search text must occur exactly once and is replaced by "
          "the replace text at the same index.",
          {text("path", root_path), texts("search", "The exact texts to find, one per block"),
           texts("replace", "Their replacements, in the same order")});
  replace.param_aliases = {
      {"file_path", "path"}, {"old_block", "search"}, {"new_block", "replace"}};
  replace.list_params = {"search", "replace"};
  replace.done_label = "✓ Replaced in:";

  // llm-sidekick's `**Insert:** `path:N`` (its editor tool's insert: insert_line, new_str).
  ToolSpec& insert = add(
      "insert_into_file", Effect::Writes, "Inserts text after a line of a file (0: at the top).",
      {text("path", root_path),
       ParamSpec{"line", {"integer"}, "The line to insert after; 0 inserts at the top", true, {}},
       text("content", "The lines to insert")});
  insert.param_aliases = {{"file_path", "path"}, {"insert_line", "line"}, {"new_str", "content"}};
  insert.done_label = "✓ Inserted into:";

  add("delete_file", Effect::Writes, "Deletes a file.", {text("path", root_path)}).param_aliases = {
      {"file_path", "path"}};
  add("move_file", Effect::Writes, "Moves or renames a file.",
      {text("path", root_path), text("new_path", "Where it goes, relative to the root")})
      .param_aliases = {{"file_path", "path"}};
  add("copy_file", Effect::Writes, "Copies a file.",
      {text("path", root_path), text("new_path", "Where the copy goes, relative to the root")})
      .param_aliases = {{"file_path", "path"}};
  ToolSpec& edit =
      add("edit_buffer", Effect::Writes,
          "Edits a buffer open in Neovim: adds, updates or deletes lines.",
          {ParamSpec{"buffer", {"string", "integer"}, "The buffer's number or file name", true, {}},
           ParamSpec{"action", {"string"}, "What to do", true, {"add", "update", "delete"}},
           number("line", "The line to add after (0: the top)"),
           number("start_line", "The first line to update or delete (1-based)"),
           number("end_line", "The last line to update or delete, included"),
           optional_text("code", "The new lines")});
  edit.aliases = {"editor"};
  // What :ToolSendQuickfix and :ToolSendDiagnostics add to a chat (lua/toolhost/tools.lua).
  add("get_quickfix", Effect::Reads,
      "Lists Neovim's quickfix list (build and test errors) as path:line:col: severity [code]: "
      "text, errors first.",
      {optional_text("list", "A call's job id (th-3) or a list number; none: the current list")});
  add("get_diagnostics", Effect::Reads,
      "Lists the diagnostics Neovim shows (language servers', linters', build errors) as "
      "path:line:col: severity [code]: text, errors first.",
      {optional_text("path", "A file relative to the root; none: every file's")});
  return table;
}

ToolTable tool_table_for(const Config& config) {
  ToolTable table = builtin_tool_table();
  for (const auto& tool : config.tools) {
    ToolSpec spec;
    spec.name = tool.name;
    spec.description = tool.description;
    spec.effect = Effect::Runs;  // a program or a Lua function: it may do anything
    for (const auto& param : tool.params) {
      if (param.required) spec.required.push_back(param.name);
      spec.params.push_back(
          ParamSpec{param.name, {"string"}, param.description, param.required, {}});
    }
    table.tools.push_back(std::move(spec));
  }
  return table;
}

std::string executed_label(Status status, const ToolSpec* spec) {
  if (status == Status::Succeeded) return spec ? spec->done_label : ToolSpec{}.done_label;
  for (const auto& [value, label] : kFailureLabels) {
    if (value == status) return std::string(label);
  }
  return "✗ Failed:";
}

std::string called_label(Status status) {
  return status == Status::Succeeded ? std::string(kCalledLabel) : executed_label(status, nullptr);
}

std::vector<std::string> executed_labels(const ToolTable& table) {
  std::vector<std::string> labels{ToolSpec{}.done_label, std::string(kCalledLabel)};
  for (const auto& tool : table.tools) {
    if (std::find(labels.begin(), labels.end(), tool.done_label) == labels.end()) {
      labels.push_back(tool.done_label);
    }
  }
  for (const auto& [status, label] : kFailureLabels) labels.emplace_back(label);
  return labels;
}

}  // namespace toolhost::core
