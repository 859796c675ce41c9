#include "results/executed_form.h"

#include <algorithm>
#include <optional>

#include "core/tool_table.h"
#include "parse/sidekick_header.h"
#include "parse/text.h"

namespace toolhost::results {
namespace {

bool is_purpose(std::string_view line) {
  auto body = parse::strip_indent(line);
  return body && !body->empty() && body->front() == '>';
}

std::string label(core::Status status, const std::string& tool) {
  static const core::ToolTable builtins = core::builtin_tool_table();
  return core::executed_label(status, builtins.find(tool));
}

// A parameter as text; a value of another type (a model's JSON) is shown as JSON.
std::string text_param(const core::ToolCall& call, const char* name) {
  auto it = call.params.find(name);
  if (it == call.params.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
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

// A `**Tool:** `name`` block (SPEC 13.3), or its executed form: ``✓ Called: `name` ``, or a
// failure label naming the call's tool above the fence it kept. Its header names the tool.
bool is_tool_form(const parse::ToolCall& call, const std::vector<std::string>& block_lines) {
  static const core::ToolTable builtins = core::builtin_tool_table();
  if (block_lines.empty()) return false;
  std::vector<parse::Header> headers = parse::parse_headers(block_lines[0], builtins);
  if (headers.size() != 1) return false;
  const parse::Header& header = headers.front();
  if (header.kind == parse::HeaderKind::Tool) return true;
  if (header.kind != parse::HeaderKind::Executed || !header.span) return false;
  if (header.label == core::called_label(core::Status::Succeeded)) return true;
  const bool kept_fence =
      std::any_of(block_lines.begin() + 1, block_lines.end(),
                  [](const std::string& line) { return parse::fence_open(line).has_value(); });
  return parse::starts_with(header.label, "✗ ") && *header.span == call.tool && kept_fence;
}

}  // namespace

bool keeps_block(const parse::ToolCall& call) {
  // A block that shares its first line (with the role header, or with a sibling header) cannot
  // rewrite that line without rewriting what else is on it.
  return call.dialect != parse::Dialect::Sidekick || call.executed_form || call.part > 0 ||
         call.column > 0;
}

std::vector<std::string> executed_form(const parse::ToolCall& call,
                                       const std::vector<std::string>& block_lines,
                                       core::Status status) {
  if (keeps_block(call)) return block_lines;
  if (is_tool_form(call, block_lines)) {
    // The fence holding the arguments stays; the header names the tool as the table does.
    std::vector<std::string> out = block_lines;
    out[0] = core::called_label(status) + " `" + call.tool + "`";
    return out;
  }
  if (call.tool != "run_terminal_command") {
    // File tools keep their parameter fences (the user sees what changed); only the header
    // line changes.
    std::vector<std::string> out = block_lines;
    std::string path = text_param(call, "path");
    // An insertion keeps its line, as llm-sidekick wrote it (`**Insert:** `a.lua:12``).
    if (call.tool == "insert_into_file") path += ":" + text_param(call, "line");
    if (!out.empty()) out[0] = label(status, call.tool) + " `" + path + "`";
    return out;
  }
  // The block is: header, [blank], fence … fence, [blank], "> purpose" lines.
  std::vector<std::string> fence;
  std::vector<std::string> purpose;
  std::optional<parse::FenceOpen> open;
  for (size_t i = 1; i < block_lines.size(); ++i) {
    const std::string& line = block_lines[i];
    if (open) {
      fence.push_back(line);
      if (parse::closes_fence(line, *open)) open.reset();
    } else if (fence.empty() && (open = parse::fence_open(line))) {
      fence.push_back(line);
    } else if (is_purpose(line)) {
      purpose.push_back(line);
    }
  }
  std::string command = text_param(call, "command");
  bool one_line = command.find('\n') == std::string::npos && command.find('`') == std::string::npos;
  std::vector<std::string> out;
  if (one_line) {
    out.push_back(label(status, call.tool) + " `" + command + "`");
  } else {
    out.push_back(label(status, call.tool));
    // The older `**Execute:** `…`` form has no fence: the command needs one now.
    if (fence.empty()) fence = fenced(command);
    out.insert(out.end(), fence.begin(), fence.end());
  }
  out.insert(out.end(), purpose.begin(), purpose.end());
  return out;
}

std::vector<std::string> rerun_form(const parse::ToolCall& call,
                                    std::vector<std::string> block_lines, core::Status status) {
  if (!call.executed_form) return executed_form(call, block_lines, status);
  if (call.dialect != parse::Dialect::Sidekick || call.column > 0 || block_lines.empty()) {
    return block_lines;
  }
  static const std::vector<std::string> labels = core::executed_labels(core::builtin_tool_table());
  std::string& header = block_lines[0];
  const size_t indent = header.find_first_not_of(' ');
  const std::string now =
      is_tool_form(call, block_lines) ? core::called_label(status) : label(status, call.tool);
  for (const auto& old : labels) {
    if (indent != std::string::npos && header.compare(indent, old.size(), old) == 0) {
      header.replace(indent, old.size(), now);
      break;
    }
  }
  return block_lines;
}

}  // namespace toolhost::results
