#pragma once
// The ````result …```` block written under a finished call (SPEC 10.4), and the output cap
// of SPEC 5.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "jobs/types.h"

namespace toolhost::results {

struct ResultOptions {
  size_t max_lines = core::defaults::kMaxLines;  // both streams together
  int part = 0;  // 1-based index inside a multi-call block, 0 when alone
  // Whether a line would start a message in this buffer's dialect (then it gets a leading
  // space, so the chat plugin's own parser does not split the reply there).
  std::function<bool(std::string_view)> starts_message;
};

// `Error: …` (why it could not start, cleaned as output: it may quote a model's argv),
// `Exit code: N` / `Signal: NAME`, then Stdout: and Stderr: sections, capped.
std::vector<std::string> terminal_body(const jobs::JobInfo& job, const ResultOptions& options);

// A file tool's (a task job's) body: its text on success, never cut by output.max_lines (the
// tool itself bounds what it reads), lines cleaned as any output; else `Error: …`,
// `Timed out after …` or `Canceled`.
std::vector<std::string> task_body(const jobs::JobInfo& job);

// A call that was refused before it ran: `Refused: <reason>`. The reason may quote what the
// model wrote (a path holding a newline or a fence), so it is cleaned as output is.
std::vector<std::string> refused_body(const std::string& reason);

// The body for whatever ran the job: task_body() for a function, terminal_body() for a process.
std::vector<std::string> job_body(const jobs::JobInfo& job, const ResultOptions& options);

// Fence line, key=value header, the body (escaped), closing fence.
std::vector<std::string> result_block(const jobs::JobInfo& job, std::vector<std::string> body,
                                      const ResultOptions& options);

}  // namespace toolhost::results
