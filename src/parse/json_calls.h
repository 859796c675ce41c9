#pragma once
// JSON fences (SPEC 10.3).

#include <string>
#include <string_view>

#include "parse/reader.h"

namespace toolhost::parse {

// Lexical candidacy (SPEC 3.1): starts with `{` or `[` and holds a "tool"/"name" key and a
// "parameters"/"arguments" key, or an "input" key next to "tool_use" (Anthropic). Any other json
// fence is ordinary text.
bool is_json_candidate(std::string_view content);

// The calls of a closed candidate fence: a call object in any accepted shape (toolhost's, an
// OpenAI tool call or its `function`, an Ollama `tool_calls` element, an Anthropic `tool_use`
// block), an array of them, or an object holding them as "tool_calls". Tool and params only.
Found read_json_calls(const ReadContext& ctx, int open_row, const std::string& content);

}  // namespace toolhost::parse
