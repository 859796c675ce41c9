#include "session/executed_form.h"

namespace toolhost::session {
namespace {

std::string status_word(jobs::Status status) {
  switch (status) {
    case jobs::Status::Succeeded: return "✓ Executed:";
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

std::vector<std::string> executed_form(const parse::ToolCall& call,
                                       const std::vector<std::string>& block_lines,
                                       jobs::Status status) {
  if (call.dialect != parse::Dialect::Sidekick || call.tool != "run_terminal_command" ||
      call.executed_form) {
    return block_lines;
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
    out.push_back(status_word(status) + " `" + command + "`");
  } else {
    out.push_back(status_word(status));
    out.insert(out.end(), fence.begin(), fence.end());
  }
  out.insert(out.end(), purpose.begin(), purpose.end());
  return out;
}

}  // namespace toolhost::session
