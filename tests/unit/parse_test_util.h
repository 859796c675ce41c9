#pragma once
// Helpers shared by the parse_*_test.cc files.

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/tool_table.h"
#include "parse/parser.h"

namespace toolhost::parse::testing {

inline std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      if (start < text.size()) lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

inline Options default_options(bool complete = true) {
  Options options;
  options.tools = core::builtin_tool_table();
  options.complete = complete;
  return options;
}

// The built-ins and the tools of two MCP servers, as the MCP layer names them (SPEC 13.3):
// `everything` (server-everything's echo, add and longRunningOperation) and `my docs`, whose
// name and tool name hold characters a table name cannot (`my_docs__search.v2`).
inline ToolTable mcp_tool_table() {
  ToolTable table = core::builtin_tool_table();
  auto add = [&](std::string server, std::string tool, std::string name, nlohmann::json schema) {
    core::ToolSpec spec;
    spec.name = std::move(name);
    spec.description = "the " + tool + " tool of MCP server " + server;
    core::RemoteTool remote;
    remote.server = std::move(server);
    remote.tool = std::move(tool);
    remote.input_schema = std::move(schema);
    spec.remote = std::move(remote);
    table.tools.push_back(std::move(spec));
  };
  const auto object = [](nlohmann::json properties, nlohmann::json required) {
    return nlohmann::json{
        {"type", "object"}, {"properties", std::move(properties)}, {"required", required}};
  };
  add("everything", "echo", "everything__echo",
      object({{"message", {{"type", "string"}}}}, {"message"}));
  add("everything", "add", "everything__add",
      object({{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}, {"a", "b"}));
  add("everything", "longRunningOperation", "everything__longRunningOperation",
      object({{"duration", {{"type", "number"}}}, {"steps", {{"type", "number"}}}},
             nlohmann::json::array()));
  add("my docs", "search.v2", "my_docs__search.v2",
      object({{"query", {{"type", "string"}}}}, {"query"}));
  return table;
}

inline Options mcp_options(bool complete = true) {
  Options options;
  options.tools = mcp_tool_table();
  options.complete = complete;
  return options;
}

inline ParseResult parse_text(std::string_view text, bool complete = true) {
  return parse(lines_of(text), default_options(complete));
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string fixture_path(const std::string& name) {
  return std::string(TOOLHOST_FIXTURES) + "/parse/" + name;
}

}  // namespace toolhost::parse::testing
