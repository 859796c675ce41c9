#include "parse/remote_tools.h"

#include <vector>

#include "core/tool_schema.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

// A list of names for an error message, each in backticks; long lists end in "…".
std::string listed(const std::vector<std::string>& names) {
  constexpr size_t kShown = 20;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += "`" + names[i] + "`";
  }
  if (names.size() > kShown) out += ", … (" + std::to_string(names.size()) + " in all)";
  return out;
}

void add_once(std::vector<std::string>& names, const std::string& name) {
  for (const auto& known : names) {
    if (known == name) return;
  }
  names.push_back(name);
}

const char* json_kind(const nlohmann::json& value) {
  if (value.is_array()) return "a list";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

}  // namespace

const ToolSpec* find_tool(const ToolTable& table, std::string_view name) {
  if (const ToolSpec* spec = table.find(name)) return spec;
  const ToolSpec* found = nullptr;
  for (const ToolSpec& spec : table.tools) {
    if (!spec.remote || spec.remote->server + "__" + spec.remote->tool != name) continue;
    if (found) return nullptr;  // two servers' names clean to the same: the table's name decides
    found = &spec;
  }
  if (found) return found;
  return core::find_by_api_name(table, name);
}

std::variant<const ToolSpec*, std::string> find_remote_tool(const ToolTable& table,
                                                            std::string_view server,
                                                            std::string_view tool) {
  std::vector<std::string> offered;
  std::vector<std::string> servers;
  for (const ToolSpec& spec : table.tools) {
    if (!spec.remote) continue;
    add_once(servers, spec.remote->server);
    if (spec.remote->server != server) continue;
    if (spec.remote->tool == tool) return &spec;
    offered.push_back(spec.remote->tool);
  }
  const std::string names =
      "MCP server `" + std::string(server) + "`, tool `" + std::string(tool) + "`";
  if (!offered.empty()) {
    return "unknown tool: " + names + " (the server offers " + listed(offered) + ")";
  }
  if (servers.empty()) return "unknown MCP server: " + names + " (no MCP server's tools are known)";
  return "unknown MCP server: " + names + " (servers with tools: " + listed(servers) + ")";
}

std::string unknown_tool_message(const ToolTable& table, std::string_view name) {
  std::string message = "unknown tool `" + std::string(name) + "`";
  const size_t separator = name.find("__");
  if (separator == std::string_view::npos || separator == 0) return message;
  const std::string_view prefix = name.substr(0, separator);
  std::string server;
  std::vector<std::string> offered;
  for (const ToolSpec& spec : table.tools) {
    if (!spec.remote) continue;
    const bool same = spec.remote->server == prefix ||
                      std::string_view(spec.name).substr(0, spec.name.find("__")) == prefix;
    if (!same || (!server.empty() && spec.remote->server != server)) continue;
    server = spec.remote->server;
    offered.push_back(spec.name);
  }
  if (offered.empty()) return message;
  return message + ": MCP server `" + server + "` offers " + listed(offered);
}

std::variant<nlohmann::json, std::string> arguments_object(const nlohmann::json& value,
                                                           const std::string& what) {
  if (value.is_object()) return value;
  if (value.is_null()) return nlohmann::json::object();
  if (!value.is_string()) return what + " must be a JSON object, not " + json_kind(value);
  const std::string& text = value.get_ref<const std::string&>();
  if (trim(text).empty()) return nlohmann::json::object();
  if (json_depth(text) > kMaxJsonDepth) {
    return what + " are nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  }
  nlohmann::json decoded = nlohmann::json::parse(text, nullptr, false);
  if (decoded.is_discarded()) return what + " are not valid JSON";
  if (!decoded.is_object()) return what + " must be a JSON object, not " + json_kind(decoded);
  return decoded;
}

}  // namespace toolhost::parse
