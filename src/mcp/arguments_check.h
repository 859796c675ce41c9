#pragma once
// Checks a call's arguments against a tool's input schema before anything runs, and names the
// parameter that does not fit. The subset of JSON Schema that tool schemas use in practice:
// `type` (one or a list), `required`, `properties`, `additionalProperties: false`, `enum`,
// `items`, `minimum`/`maximum`; other keywords are not checked (the tool still validates).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace toolhost::mcp {

// Empty when `arguments` fit `schema`; else a message such as
// `parameter "command": expected string, got number`.
std::optional<std::string> check_arguments(const nlohmann::json& schema,
                                           const nlohmann::json& arguments);

}  // namespace toolhost::mcp
