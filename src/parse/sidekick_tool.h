#pragma once
// The llm-sidekick-style block that names any tool of the table (SPEC 13.3), an MCP server's
// above all: ``**Tool:** `everything__echo` `` and a fence holding its arguments as a JSON
// object. Executed, the header reads ``✓ Called: `everything__echo` `` (or a failure label)
// and the fence stays.

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "parse/sidekick_block.h"
#include "parse/sidekick_header.h"

namespace toolhost::parse {

// The call of a `**Tool:**` header at `at`, or its error.
Found read_tool_block(const ReadContext& ctx, BlockStart at, const Header& header);

// The parameters of an executed `**Tool:**` block, or nullopt when the executed `header` is
// another tool's: it is one when its label is "✓ Called:", or when a failure label names `tool`
// (the tool of its result block, `canonical` its name in the table) and the first fence kept
// under it holds a JSON object.
std::optional<nlohmann::json> executed_tool_params(const Header& header,
                                                   const std::vector<ParamFence>& fences,
                                                   const std::string& tool,
                                                   const std::string& canonical);

}  // namespace toolhost::parse
