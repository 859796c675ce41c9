// An outside agent's calls (SPEC 13.5): the host writes each into the agent's buffer as a
// block, and from there it is a chat block like any other, but that it starts (or waits for
// approval) as soon as it is parsed, whatever the buffer's auto_run, and no chain follows it.
#include "session/session.h"
#include "tools/policy.h"

namespace toolhost::session {

const parse::ToolCall* Session::call_starting_at(int row) const {
  for (const auto& call : parser_.result().calls) {
    if (call.start == row) return &call;
  }
  return nullptr;
}

bool Session::start_agent_call(const std::string& call_id) {
  const parse::ToolCall* call = find_call(call_id);
  if (!call || !pending(*call) || call->status == core::Status::Incomplete) return false;
  tools::Approval approval = tools::auto_accept(*call, ctx_.config, root_);
  if (approval.auto_run()) {
    start(*call, Origin::User, /*automatic=*/true);
  } else {
    // A custom tool's auto_accept function is not asked: the user approves (as submit()).
    hold(*call, approval.reason);
  }
  return true;
}

bool Session::end_agent_call(const std::string& call_id, const std::string& reason) {
  if (auto it = active_.find(call_id); it != active_.end()) {
    return ctx_.engine.cancel(it->second.job_id);
  }
  const parse::ToolCall* call = find_call(call_id);
  if (!call || !pending(*call)) return false;
  // Nobody declined it: the agent withdrew it (canceled, or went away) before it ran.
  end_unrun(*call, core::Status::Canceled, reason,
            {"The agent withdrew this call before it ran.", "Reason: " + reason});
  return true;
}

}  // namespace toolhost::session
