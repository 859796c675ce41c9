#pragma once
// How `toolhost run` writes a finished call into the transcript: the same lines, in the same
// place, as a Neovim session's rewrite (Session::write_result), applied to the file's lines.

#include <string>
#include <vector>

#include "core/config.h"
#include "jobs/types.h"
#include "parse/types.h"

namespace toolhost::cli {

// Rewrites `lines`: an llm-sidekick block becomes its executed form with the result block
// under it; a block that keeps its text (fenced dialects, role-line and side-by-side blocks)
// gets the result block inserted after it, after the results of its lower parts. `calls` is
// the parse of `lines` that `call` comes from.
void write_result(std::vector<std::string>& lines, const std::vector<parse::ToolCall>& calls,
                  const parse::ToolCall& call, const jobs::JobInfo& job,
                  std::vector<std::string> body, const core::Config& config);

// The body of a finished job's result block, as the session writes it.
std::vector<std::string> result_body(const jobs::JobInfo& job, const core::Config& config);

}  // namespace toolhost::cli
