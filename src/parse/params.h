#pragma once
// Tool and parameter names through the tool table (SPEC 7): aliases, list parameters and
// required parameters. Every dialect ends here, so a call means the same whatever its syntax.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

struct ResolvedCall {
  std::string tool;       // canonical
  nlohmann::json params;  // object with canonical names
};

// The first parameter of `params` (named as written, aliases allowed) that `spec` reads as text
// but that holds a structured value: a text parameter holding an object or a list (a list of
// texts for `per_item_param`), or a list parameter holding an object (an item of replace_in_file
// may be a list of candidate texts, see sidekick_replace.h); "" when there is none.
std::string structured_text_param(const ToolSpec& spec, const nlohmann::json& params);

// The call, or the message of a parse error ("unknown tool `x`", a missing parameter).
std::variant<ResolvedCall, std::string> resolve_call(const ToolTable& table, std::string_view tool,
                                                     nlohmann::json params);

// Appends the resolved call to `calls` (tool and params set): one call per item when the tool's
// `per_item_param` holds a list, else the call itself.
void append_calls(std::vector<ToolCall>& calls, const ToolTable& table, ResolvedCall call);

}  // namespace toolhost::parse
