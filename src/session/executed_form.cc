#include "session/executed_form.h"

#include <algorithm>
#include <optional>

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

// A fence line (SPEC 10, CommonMark): up to 3 spaces, then 3 or more backticks or tildes.
struct Fence {
  char marker = 0;
  size_t length = 0;
  bool bare = false;  // nothing but spaces after the marker run (may close a fence)
};

std::optional<Fence> fence_of(const std::string& line) {
  size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos || indent > 3) return std::nullopt;
  char marker = line[indent];
  if (marker != '`' && marker != '~') return std::nullopt;
  size_t end = line.find_first_not_of(marker, indent);
  if (end == std::string::npos) end = line.size();
  if (end - indent < 3) return std::nullopt;
  return Fence{marker, end - indent, line.find_first_not_of(' ', end) == std::string::npos};
}

// A closing fence uses the opening one's character, is at least as long, has no info string.
bool closes(const Fence& open, const std::string& line) {
  auto fence = fence_of(line);
  return fence && fence->bare && fence->marker == open.marker && fence->length >= open.length;
}

bool is_purpose(const std::string& line) {
  size_t indent = line.find_first_not_of(' ');
  return indent != std::string::npos && indent <= 3 && line[indent] == '>';
}

// A fence holding `text`, longer than any backtick run in it.
std::vector<std::string> fenced(const std::string& text) {
  size_t longest = 0;
  for (size_t i = 0; i < text.size();) {
    size_t end = text.find_first_not_of('`', i);
    if (end == std::string::npos) end = text.size();
    longest = std::max(longest, end - i);
    i = end == i ? i + 1 : end;
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::vector<std::string> out{fence + "bash"};
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    out.push_back(text.substr(start, nl - start));
  }
  out.push_back(text.substr(start));
  out.push_back(fence);
  return out;
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
  std::optional<Fence> open;
  for (size_t i = 1; i < block_lines.size(); ++i) {
    const std::string& line = block_lines[i];
    if (open) {
      fence.push_back(line);
      if (closes(*open, line)) open.reset();
    } else if (fence.empty() && (open = fence_of(line))) {
      fence.push_back(line);
    } else if (is_purpose(line)) {
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
    // The older `**Execute:** `…`` form has no fence: the command needs one now.
    if (fence.empty()) fence = fenced(command);
    out.insert(out.end(), fence.begin(), fence.end());
  }
  out.insert(out.end(), purpose.begin(), purpose.end());
  return out;
}

}  // namespace toolhost::session
