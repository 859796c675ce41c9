#pragma once
// Reading a call's parameters: a model writes them, so every type is checked and a wrong one
// is an error that names the parameter.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace toolhost::tools {

// "a number", "a list", … for error messages.
std::string_view json_type(const nlohmann::json& value);

// A string parameter; absent or null gives `fallback`, or an error without one.
core::Result<std::string> string_param(const nlohmann::json& params, const char* name,
                                       std::optional<std::string> fallback = std::nullopt);

// A positive whole number given as a number or as digits (CodeCompanion's XML is all text);
// absent or null gives nullopt.
core::Result<std::optional<uint64_t>> count_param(const nlohmann::json& params, const char* name);

// A line number that may be 0 (insert_into_file's "after line 0" is the top), as count_param
// reads it; absent is an error.
core::Result<uint64_t> line_number_param(const nlohmann::json& params, const char* name);

// true, "true", "1", "yes" or a non-zero number.
bool flag_param(const nlohmann::json& params, const char* name);

}  // namespace toolhost::tools
