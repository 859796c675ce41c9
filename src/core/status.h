#pragma once
// The states of a tool call and of the job that handles it (SPEC 4): one enum, one set of names.

#include <optional>
#include <string_view>

namespace toolhost::core {

enum class Status {
  Pending,     // in the text, not run (the parser's)
  Incomplete,  // its fence is still open at the end of a reply that may be streaming (the parser's)
  AwaitingApproval,
  Queued,
  Running,
  Succeeded,
  Failed,
  TimedOut,
  Canceled,
  Rejected,
  Interrupted,  // its host died while it ran (found in history)
};

// "pending", "awaiting_approval", "timed_out", … as written in result blocks, history and JSON.
std::string_view to_string(Status);
std::optional<Status> status_from_string(std::string_view);
// A job that ended: succeeded, failed, timed out, canceled, rejected or interrupted.
bool is_finished(Status);

}  // namespace toolhost::core
