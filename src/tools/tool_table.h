#pragma once
// The built-in tools of SPEC 7 as the parser sees them (names, aliases, required parameters).

#include "parse/types.h"

namespace toolhost::tools {

parse::ToolTable builtin_tool_table();

}  // namespace toolhost::tools
