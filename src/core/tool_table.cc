#include "core/tool_table.h"

#include <algorithm>

namespace toolhost::core {
namespace {

constexpr std::pair<Status, std::string_view> kFailureLabels[] = {
    {Status::TimedOut, "✗ Timed out:"}, {Status::Canceled, "✗ Canceled:"},
    {Status::Rejected, "✗ Rejected:"},  {Status::Interrupted, "✗ Interrupted:"},
    {Status::Failed, "✗ Failed:"},  // last: every other unsuccessful status
};

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

// SPEC 7: names as llm-sidekick writes them, CodeCompanion's as aliases.
ToolTable builtin_tool_table() {
  ToolTable table;
  auto add = [&](std::string name, std::vector<std::string> aliases,
                 std::vector<std::string> required,
                 std::map<std::string, std::string> param_aliases,
                 std::vector<std::string> list_params, std::string done_label) {
    ToolSpec spec;
    spec.name = std::move(name);
    spec.aliases = std::move(aliases);
    spec.required = std::move(required);
    spec.param_aliases = std::move(param_aliases);
    spec.list_params = std::move(list_params);
    spec.done_label = std::move(done_label);
    table.tools.push_back(std::move(spec));
  };
  auto texts = [&](std::vector<std::string> names) { table.tools.back().text_params = names; };
  add("run_terminal_command", {"cmd_runner", "bash"}, {"command"}, {{"explanation", "purpose"}}, {},
      "✓ Executed:");
  texts({"command", "cwd"});
  add("read_file", {"read_files"}, {"path"}, {{"file_path", "path"}, {"file_paths", "path"}}, {},
      "✓ Read:");
  table.tools.back().per_item_param = "path";
  texts({"path"});
  add("list_directory", {"list_directory_contents"}, {"path"}, {{"directory_path", "path"}}, {},
      "✓ ls:");
  texts({"path"});
  add("search_files", {"grep"}, {"pattern"}, {}, {}, "✓ Executed:");
  texts({"pattern", "path", "glob"});
  add("create_or_replace_file", {"write_to_file", "write_file"}, {"path", "content"},
      {{"file_path", "path"}, {"contents", "content"}}, {}, "✓ Wrote:");
  texts({"path", "content"});
  // search[]/replace[] pair up; old_block2/new_block2 … append to them.
  add("replace_in_file", {}, {"path", "search", "replace"},
      {{"file_path", "path"}, {"old_block", "search"}, {"new_block", "replace"}},
      {"search", "replace"}, "✓ Replaced in:");
  texts({"path"});
  // llm-sidekick's `**Insert:** `path:N`` (its editor tool's insert: insert_line, new_str).
  add("insert_into_file", {}, {"path", "line", "content"},
      {{"file_path", "path"}, {"insert_line", "line"}, {"new_str", "content"}}, {},
      "✓ Inserted into:");
  texts({"path", "content"});
  add("delete_file", {}, {"path"}, {{"file_path", "path"}}, {}, "✓ Executed:");
  texts({"path"});
  add("move_file", {}, {"path", "new_path"}, {{"file_path", "path"}}, {}, "✓ Executed:");
  texts({"path", "new_path"});
  add("copy_file", {}, {"path", "new_path"}, {{"file_path", "path"}}, {}, "✓ Executed:");
  texts({"path", "new_path"});
  add("edit_buffer", {"editor"}, {"buffer", "action"}, {}, {}, "✓ Executed:");
  texts({"action", "code"});
  return table;
}

ToolTable tool_table_for(const Config& config) {
  ToolTable table = builtin_tool_table();
  for (const auto& tool : config.tools) {
    ToolSpec spec;
    spec.name = tool.name;
    for (const auto& param : tool.params) {
      if (param.required) spec.required.push_back(param.name);
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

std::vector<std::string> executed_labels(const ToolTable& table) {
  std::vector<std::string> labels{ToolSpec{}.done_label};
  for (const auto& tool : table.tools) {
    if (std::find(labels.begin(), labels.end(), tool.done_label) == labels.end()) {
      labels.push_back(tool.done_label);
    }
  }
  for (const auto& [status, label] : kFailureLabels) labels.emplace_back(label);
  return labels;
}

}  // namespace toolhost::core
