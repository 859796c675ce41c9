// Minimal parser for the foundation slice: llm-sidekick `**bash**` blocks only.
// The parser issue replaces this with every dialect of SPEC 10.
#include "parse/parser.h"

#include <algorithm>
#include <map>

#include "parse/call_id.h"

namespace toolhost::parse {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool in(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<Role> header_role(std::string_view line, const RoleNames& roles) {
  auto role_of = [&](std::string_view name) -> std::optional<Role> {
    if (in(roles.user, name)) return Role::User;
    if (in(roles.assistant, name)) return Role::Assistant;
    if (in(roles.system, name)) return Role::System;
    return std::nullopt;
  };
  if (starts_with(line, "## ")) {
    std::string_view name = line.substr(3);
    name = name.substr(0, name.find(" ("));
    return role_of(name);
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos && colon > 0) return role_of(line.substr(0, colon));
  return std::nullopt;
}

// A backtick fence opening line: returns its length, 0 when the line is not one.
size_t fence_length(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '`') ++n;
  return n >= 3 ? n : 0;
}

bool closes_fence(std::string_view line, size_t open_len) {
  size_t n = fence_length(line);
  return n >= open_len && line.find_first_not_of('`', n) == std::string_view::npos;
}

// "✓ Executed: `cmd`" and its failure forms: the command, or nullopt.
std::optional<std::string> executed_command(std::string_view line) {
  for (std::string_view prefix : {"✓ Executed: `", "✗ Failed: `", "✗ Timed out: `",
                                  "✗ Canceled: `", "✗ Interrupted: `", "✗ Rejected: `"}) {
    if (starts_with(line, prefix) && line.size() > prefix.size() && line.back() == '`') {
      return std::string(line.substr(prefix.size(), line.size() - prefix.size() - 1));
    }
  }
  return std::nullopt;
}

}  // namespace

ParseResult parse(const std::vector<std::string>& lines, const Options& options) {
  ParseResult out;
  const int count = static_cast<int>(lines.size());
  for (int row = 0; row < count; ++row) {
    if (auto role = header_role(lines[row], options.roles)) {
      if (!out.messages.empty()) out.messages.back().end = row;
      out.messages.push_back({*role, row, count});
    }
  }
  std::map<std::string, int> seen;  // tool+params -> earlier identical calls
  for (size_t m = 0; m < out.messages.size(); ++m) {
    const Message& message = out.messages[m];
    if (message.role != Role::Assistant) continue;
    for (int row = message.start; row < message.end; ++row) {
      if (auto executed = executed_command(lines[row])) {
        int end = row + 1;
        while (end < message.end && starts_with(lines[end], "> ")) ++end;
        if (end >= message.end || !starts_with(lines[end], "````result ")) continue;
        int result_end = end + 1;
        while (result_end < message.end && lines[result_end] != "````") ++result_end;
        ToolCall call;
        call.tool = "run_terminal_command";
        call.params = {{"command", *executed}};
        call.start = row;
        call.end = end;
        call.message = static_cast<int>(m);
        call.executed_form = true;
        call.status = CallStatus::Succeeded;
        call.result = ResultRef{end, std::min(result_end + 1, message.end), "", ""};
        std::string key = call.tool + '\0' + call.params.dump();
        call.id = call_id(call.tool, call.params, seen[key]++);
        out.calls.push_back(std::move(call));
        row = result_end;
        continue;
      }
      if (lines[row] != "**bash**" || row + 1 >= message.end) continue;
      size_t open = fence_length(lines[row + 1]);
      if (open == 0) continue;
      int close = row + 2;
      while (close < message.end && !closes_fence(lines[close], open)) ++close;
      if (close >= message.end) {
        out.errors.push_back({row, message.end, "unclosed fence"});
        break;
      }
      std::string command;
      for (int r = row + 2; r < close; ++r) command += lines[r] + (r + 1 < close ? "\n" : "");
      int end = close + 1;
      std::string purpose;
      while (end < message.end && starts_with(lines[end], "> ")) {
        purpose += (purpose.empty() ? "" : "\n") + lines[end].substr(2);
        ++end;
      }
      ToolCall call;
      call.tool = "run_terminal_command";
      call.params = {{"command", command}};
      if (!purpose.empty()) call.params["purpose"] = purpose;
      call.start = row;
      call.end = end;
      call.message = static_cast<int>(m);
      std::string key = call.tool + '\0' + nlohmann::json{{"command", command}}.dump();
      call.id = call_id(call.tool, call.params, seen[key]++);
      if (end < message.end && starts_with(lines[end], "````result ")) {
        int result_end = end + 1;
        while (result_end < message.end && lines[result_end] != "````") ++result_end;
        call.result = ResultRef{end, std::min(result_end + 1, message.end), "", ""};
        call.status = CallStatus::Succeeded;
      }
      out.calls.push_back(std::move(call));
      row = end - 1;
    }
  }
  return out;
}

}  // namespace toolhost::parse
