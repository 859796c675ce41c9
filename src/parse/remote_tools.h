#pragma once
// MCP servers' tools in chat blocks (SPEC 13.3): the table's tools that carry a
// core::RemoteTool, found by their server and their own name (mcphub's `use_mcp_tool`)
// or by a name a model may write for them, and their arguments as JSON text.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "parse/types.h"

namespace toolhost::parse {

// The tool `name` names: a name or alias of the table, else `{server}__{tool}` as the server
// spells them (before the table's name cleaned or cut it), else the name the tool takes in the
// openai and anthropic formats (core::api_tool_names). nullptr when none or several match.
const ToolSpec* find_tool(const ToolTable& table, std::string_view name);

// The tool `tool` of MCP server `server` (matched on core::RemoteTool's fields, exactly), or the
// error that says which is unknown and what the server offers.
std::variant<const ToolSpec*, std::string> find_remote_tool(const ToolTable& table,
                                                            std::string_view server,
                                                            std::string_view tool);

// "unknown tool `x`", saying what an MCP server offers when the name starts with its
// `{server}__`.
std::string unknown_tool_message(const ToolTable& table, std::string_view name);

// A tool's arguments as the block gives them: a JSON object, or text holding one (blank text is
// `{}`). Anything else is the error message, which names the arguments by `what`.
std::variant<nlohmann::json, std::string> arguments_object(const nlohmann::json& value,
                                                           const std::string& what);

}  // namespace toolhost::parse
