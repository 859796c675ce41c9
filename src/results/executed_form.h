#pragma once
// How a finished block is rewritten (SPEC 10.1): the llm-sidekick header becomes
// "✓ Executed: `cmd`" (or ✗ Failed: …); fenced dialects keep the block as it is.

#include <string>
#include <vector>

#include "core/status.h"
#include "parse/types.h"

namespace toolhost::results {

// Fenced dialects (CodeCompanion XML, JSON), already executed blocks and blocks that share their
// first line (`ASSISTANT: **Read:** …`, two headers side by side) stay as they are: their
// result block goes after them.
bool keeps_block(const parse::ToolCall& call);

// The block's new lines (the result block is appended by the caller).
std::vector<std::string> executed_form(const parse::ToolCall& call,
                                       const std::vector<std::string>& block_lines,
                                       core::Status status);

// A finished block run again: an executed llm-sidekick header (`✓ Executed: …`) takes the
// label of the new status; a block not yet rewritten gets executed_form(); a fenced block stays.
std::vector<std::string> rerun_form(const parse::ToolCall& call,
                                    std::vector<std::string> block_lines, core::Status status);

}  // namespace toolhost::results
