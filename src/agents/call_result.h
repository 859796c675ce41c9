#pragma once
// What an outside agent reads of a call (SPEC 13.5): the text a chat's result block holds, so a
// model reads the same thing whichever way it asked; `isError` unless the call succeeded.

#include <string>
#include <vector>

#include "core/config.h"
#include "jobs/types.h"
#include "mcp/tool.h"

namespace toolhost::agents {

// A finished job: its result body (output capped at output.max_lines as in a chat), headed by
// the status line ("✗ run_terminal_command: exit 2") when it did not succeed.
mcp::CallResult call_result(const jobs::JobInfo& job, const core::Config& config);
// The same with the body a chat buffer's result block got (a rejection's reason, a refusal).
mcp::CallResult call_result(const jobs::JobInfo& job, const std::vector<std::string>& body);

// A call that never ran: policy refused it, the user rejected it, or it needs an approval that
// nobody can give here.
mcp::CallResult not_run(const std::string& reason);

// Lines as one text, joined with newlines (a result's body, a progress message's last lines).
std::string join_lines(const std::vector<std::string>& lines);

}  // namespace toolhost::agents
