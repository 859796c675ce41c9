#pragma once
// Every tool's JSON Schema (2020-12) and description, generated from the tool table (SPEC 13.4),
// in the shapes chat plugins send to a model: OpenAI's function tools, Anthropic's tools, and
// MCP's `tools/list` entries (with honest annotations).

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

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
nlohmann::json tool_json(const ToolSpec& tool, SchemaFormat format);
// Every tool of `table`, in its order.
nlohmann::json tools_json(const ToolTable& table, SchemaFormat format);
// Every tool of `config` (built-in and custom) in the format named `format`; an unknown name is
// an error that lists the known ones. What `toolhost tools` prints and `toolhost.tools` answers.
Result<nlohmann::json> tools_json(const Config& config, std::string_view format);

}  // namespace toolhost::core
