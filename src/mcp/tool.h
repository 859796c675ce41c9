#pragma once
// A tool as MCP lists it, and a call's result as MCP returns it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace toolhost::mcp {

using Json = nlohmann::json;

// Hints only (MCP says a client must not trust them from an untrusted server); toolhost states
// its own honestly: reads are read-only, writes, deletes and the shell destructive.
struct Annotations {
  std::optional<bool> read_only;
  std::optional<bool> destructive;
  std::optional<bool> idempotent;
  std::optional<bool> open_world;
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema = Json{{"type", "object"}};
  Annotations annotations;
};

Json to_json(const Tool& tool);
// A `tools/list` entry read back (toolhost's own table, or a server's list): null with the
// reason in `error` when it has no name or its inputSchema is not an object.
std::optional<Tool> tool_from_json(const Json& json, std::string& error);

struct CallResult {
  std::string text;
  bool is_error = false;
};

// `{"content": [{"type": "text", "text": …}], "isError": …}`.
Json to_json(const CallResult& result);

}  // namespace toolhost::mcp
