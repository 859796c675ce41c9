#pragma once
// The names MCP tools take in toolhost's tool table (SPEC 13.3): `{server}__{tool}`, with every
// character outside [A-Za-z0-9_.-] made `_` (the set the model APIs accept) and at most 64
// long. Pure functions.

#include <string>
#include <utility>
#include <vector>

namespace toolhost::mcp {

constexpr size_t kMaxToolNameLength = 64;

// `{server}__{tool}`, cleaned and cut to kMaxToolNameLength.
std::string qualified_tool_name(const std::string& server, const std::string& tool);

// The names of many (server, tool) pairs, in order, all distinct: a name that two pairs would
// share (after cleaning or cutting) gets a short hash of its pair on each, so no name depends on
// which server was listed first.
std::vector<std::string> qualified_tool_names(
    const std::vector<std::pair<std::string, std::string>>& tools);

}  // namespace toolhost::mcp
