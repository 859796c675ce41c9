#include "session/executed_form.h"

namespace toolhost::session {
namespace {

// The header of a succeeded llm-sidekick block, by tool (SPEC 10.1).
std::string success_word(const std::string& tool) {
  if (tool == "create_or_replace_file") return "✓ Wrote:";
  if (tool == "replace_in_file") return "✓ Replaced in:";
  if (tool == "read_file") return "✓ Read:";
  if (tool == "list_directory") return "✓ ls:";
  return "✓ Executed:";
}

std::string status_word(jobs::Status status, const std::string& tool) {
  switch (status) {
    case jobs::Status::Succeeded: return success_word(tool);
    case jobs::Status::TimedOut: return "✗ Timed out:";
    case jobs::Status::Canceled: return "✗ Canceled:";
    case jobs::Status::Interrupted: return "✗ Interrupted:";
    default: return "✗ Failed:";
  }
}

bool is_fence(const std::string& line) {
  size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos || indent > 3) return false;
  return line.compare(indent, 3, "```") == 0 || line.compare(indent, 3, "~~~") == 0;
}

}  // namespace

bool keeps_block(const parse::ToolCall& call) {
  return call.dialect != parse::Dialect::Sidekick || call.executed_form;
}

std::vector<std::string> executed_form(const parse::ToolCall& call,
                                       const std::vector<std::string>& block_lines,
                                       jobs::Status status) {
  if (keeps_block(call)) return block_lines;
  if (call.tool != "run_terminal_command") {
    // File tools keep their parameter fences (the user sees what changed); only the header
    // line changes.
    std::vector<std::string> out = block_lines;
    std::string path = call.params.value("path", "");
    if (!out.empty()) out[0] = status_word(status, call.tool) + " `" + path + "`";
    return out;
  }
  // The block is: header, [blank], fence … fence, [blank], "> purpose" lines.
  std::vector<std::string> fence;
  std::vector<std::string> purpose;
  bool in_fence = false;
  for (size_t i = 1; i < block_lines.size(); ++i) {
    const std::string& line = block_lines[i];
    if (in_fence || (fence.empty() && is_fence(line))) {
      fence.push_back(line);
      if (fence.size() > 1 && is_fence(line)) in_fence = false;
      else in_fence = true;
    } else if (!line.empty() && line[0] == '>') {
      purpose.push_back(line);
    }
  }
  std::string command = call.params.value("command", "");
  bool one_line = command.find('\n') == std::string::npos && command.find('`') == std::string::npos;
  std::vector<std::string> out;
  if (one_line) {
    out.push_back(status_word(status, call.tool) + " `" + command + "`");
  } else {
    out.push_back(status_word(status, call.tool));
    out.insert(out.end(), fence.begin(), fence.end());
  }
  out.insert(out.end(), purpose.begin(), purpose.end());
  return out;
}

}  // namespace toolhost::session
