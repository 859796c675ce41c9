#pragma once
// How a finished block is rewritten (SPEC 10.1): the llm-sidekick header becomes
// "✓ Executed: `cmd`" (or ✗ Failed: …); fenced dialects keep the block as it is.

#include <string>
#include <vector>

#include "jobs/types.h"
#include "parse/types.h"

namespace toolhost::session {

// The block's new lines (the result block is appended by the caller).
std::vector<std::string> executed_form(const parse::ToolCall& call,
                                       const std::vector<std::string>& block_lines,
                                       jobs::Status status);

}  // namespace toolhost::session
