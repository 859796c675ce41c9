#pragma once
// Every tool's JSON Schema (2020-12) and description, generated from the tool table (SPEC 13.4),
// in the shapes chat plugins send to a model: OpenAI's function tools, Anthropic's tools, and
// MCP's `tools/list` entries (with honest annotations).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/tool_table.h"

namespace toolhost::core {

enum class SchemaFormat { kOpenAI, kAnthropic, kMcp };

// "openai", "anthropic" or "mcp"; nullopt for anything else.
std::optional<SchemaFormat> schema_format(std::string_view name);

// `{"type": "object", "properties": …, "required": …, "additionalProperties": false}`; an MCP
// server's tool keeps the inputSchema its server sent.
nlohmann::json input_schema(const ToolSpec& tool);
// MCP's hints from the tool's effect: reads are read-only, writes and programs destructive; an
// MCP server's tool keeps the hints its server gave.
nlohmann::json annotations(const ToolSpec& tool);
// `name` overrides the tool's name (api_tool_names() for the openai and anthropic formats).
nlohmann::json tool_json(const ToolSpec& tool, SchemaFormat format,
                         std::optional<std::string> name = std::nullopt);
// The names the tools of `table` take where the model APIs allow only `[A-Za-z0-9_-]{1,64}`
// (OpenAI's functions, Anthropic's tools), index-aligned with table.tools: a name already so is
// kept; any other character (an MCP tool's `.`) becomes `_`, and a name that then equals another
// tool's gets `_` and six hex digits of a hash of the tool's own name. MCP's format keeps the
// names as they are (MCP allows `.`).
std::vector<std::string> api_tool_names(const ToolTable& table);
// The tool whose api_tool_names() entry is `name` while its own name is not: how a call the
// model made by that name finds its tool. nullptr when there is none.
const ToolSpec* find_by_api_name(const ToolTable& table, std::string_view name);
// Every tool of `table`, in its order.
nlohmann::json tools_json(const ToolTable& table, SchemaFormat format);
// Every tool of `config` (built-in and custom) in the format named `format`; an unknown name is
// an error that lists the known ones. What `toolhost tools` prints and `toolhost.tools` answers.
Result<nlohmann::json> tools_json(const Config& config, std::string_view format);

}  // namespace toolhost::core
