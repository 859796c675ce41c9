#pragma once
// Output of a parse for `toolhost parse` and diagnostics: JSON (rows 0-based, end-exclusive,
// SPEC 3.2) and text for people (lines 1-based).

#include <nlohmann/json.hpp>
#include <string>

#include "parse/types.h"

namespace toolhost::parse {

nlohmann::json to_json(const ToolCall& call);
nlohmann::json to_json(const ParseError& error);
// { "messages": [...], "calls": [...], "errors": [...] }
nlohmann::json to_json(const ParseResult& result);

// "line 12: unknown tool `no_such_tool`" (1-based).
std::string error_text(const ParseError& error);
// A readable listing of messages, calls and errors, 1-based lines.
std::string to_text(const ParseResult& result);

}  // namespace toolhost::parse
