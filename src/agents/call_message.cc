#include "agents/call_message.h"

#include <algorithm>
#include <cctype>

namespace toolhost::agents {
namespace {

// A name of the list, preferring the one that reads as a plain transcript.
std::string role_name(const std::vector<std::string>& names, const char* plain,
                      const char* fallback) {
  if (std::find(names.begin(), names.end(), plain) != names.end()) return plain;
  return names.empty() ? fallback : names.front();
}

// Longer than any run of backticks in `text`, so the text cannot close it.
std::string fence_for(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return lines;
    start = end + 1;
  }
}

bool is_plain_command(const std::string& tool, const mcp::Json& arguments) {
  if (tool != "run_terminal_command" || arguments.size() != 1) return false;
  auto command = arguments.find("command");
  return command != arguments.end() && command->is_string() &&
         !command->get_ref<const std::string&>().empty() &&
         command->get_ref<const std::string&>().find('\r') == std::string::npos;
}

}  // namespace

std::string client_label(const std::string& client_name) {
  std::string label;
  for (char c : client_name.substr(0, 64)) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                       c == '_' || c == ' ' || c == '@' || c == '+';
    label += plain ? c : '_';
  }
  return label.empty() ? "agent" : label;
}

CallMessage call_message(const std::string& client, const std::string& tool,
                         const mcp::Json& arguments, const core::RoleNames& roles) {
  CallMessage message;
  message.lines.push_back(role_name(roles.assistant, "ASSISTANT", "ASSISTANT") + ":");
  message.lines.push_back(client + " calls " + tool + ":");
  message.lines.push_back("");
  message.block_offset = static_cast<int>(message.lines.size());
  if (is_plain_command(tool, arguments)) {
    const std::string& command = arguments["command"].get_ref<const std::string&>();
    std::string fence = fence_for(command);
    message.lines.push_back("**bash**");
    message.lines.push_back(fence + "bash");
    for (auto& line : split_lines(command)) message.lines.push_back(std::move(line));
    message.lines.push_back(fence);
    message.summary = command;
  } else {
    // One line of JSON: a newline in a value is escaped there.
    std::string json = mcp::Json{{"tool", tool}, {"parameters", arguments}}.dump(
        -1, ' ', false, mcp::Json::error_handler_t::replace);
    std::string fence = fence_for(json);
    message.lines.push_back(fence + "json");
    message.lines.push_back(json);
    message.lines.push_back(fence);
    message.summary = tool;
    if (auto path = arguments.find("path"); path != arguments.end() && path->is_string()) {
      message.summary += " " + path->get<std::string>();
    }
  }
  message.lines.push_back("");
  return message;
}

std::string agent_buffer_intro(const std::string& client, const core::RoleNames& roles) {
  return role_name(roles.user, "USER", "USER") + ": " + client +
         " is connected through `toolhost mcp serve`; its calls follow.";
}

}  // namespace toolhost::agents
