#include "tools/tool_table.h"

namespace toolhost::tools {

// SPEC 7: names as llm-sidekick writes them, CodeCompanion's as aliases.
parse::ToolTable builtin_tool_table() {
  parse::ToolTable table;
  table.tools.push_back({"run_terminal_command",
                         {"cmd_runner", "bash"},
                         {"command"},
                         {{"explanation", "purpose"}},
                         {}});
  table.tools.push_back(
      {"read_file", {"read_files"}, {"path"}, {{"file_path", "path"}, {"file_paths", "path"}}, {}});
  table.tools.push_back(
      {"list_directory", {"list_directory_contents"}, {"path"}, {{"directory_path", "path"}}, {}});
  table.tools.push_back({"search_files", {"grep"}, {"pattern"}, {}, {}});
  table.tools.push_back({"create_or_replace_file",
                         {"write_to_file", "write_file"},
                         {"path", "content"},
                         {{"file_path", "path"}, {"contents", "content"}},
                         {}});
  // search[]/replace[] pair up; old_block2/new_block2 … append to them.
  table.tools.push_back({"replace_in_file",
                         {},
                         {"path", "search", "replace"},
                         {{"file_path", "path"}, {"old_block", "search"}, {"new_block", "replace"}},
                         {"search", "replace"}});
  table.tools.push_back({"delete_file", {}, {"path"}, {{"file_path", "path"}}, {}});
  table.tools.push_back({"move_file", {}, {"path", "new_path"}, {{"file_path", "path"}}, {}});
  table.tools.push_back({"copy_file", {}, {"path", "new_path"}, {{"file_path", "path"}}, {}});
  table.tools.push_back({"edit_buffer", {"editor"}, {"buffer", "action"}, {}, {}});
  return table;
}

}  // namespace toolhost::tools
