// submit(): tool calls that chat plugins keep as structured data (SPEC 10.5) run through the
// same policy, jobs and feedback as the calls parsed from the buffer.
#include <algorithm>

#include "parse/params.h"
#include "parse/text.h"
#include "session/session.h"
#include "tools/policy.h"

namespace toolhost::session {

void Session::submit(Submission submission) {
  nlohmann::json arguments = std::move(submission.arguments);
  if (arguments.is_string()) {
    // OpenAI-style arguments arrive JSON-encoded; too deep would overflow the stack later.
    const std::string& text = arguments.get_ref<const std::string&>();
    arguments = parse::json_depth(text) > parse::kMaxJsonDepth
                    ? nlohmann::json(nlohmann::json::value_t::discarded)
                    : nlohmann::json::parse(text, nullptr, false);
  }
  if (arguments.is_null() || (arguments.is_array() && arguments.empty())) {
    arguments = nlohmann::json::object();  // none, or Lua's empty table
  }
  parse::ToolCall call;
  call.id = submission.id.empty() ? "submit-" + std::to_string(next_submission_++) : submission.id;
  call.dialect = core::Dialect::Json;
  // Rows come from a chat plugin (or anyone on the channel): a huge one must not overflow.
  constexpr int kMaxRow = 1 << 30;
  call.start = std::clamp(submission.row, 0, kMaxRow);
  call.end = std::clamp(submission.end_row, call.start + 1, kMaxRow + 1);
  std::string problem;
  if (!arguments.is_object()) {
    problem = "the arguments of `" + submission.name + "` are not a JSON object";
  } else {
    auto resolved = parse::resolve_call(ctx_.tools, submission.name, std::move(arguments));
    if (auto* error = std::get_if<std::string>(&resolved)) {
      problem = *error;
    } else {
      auto& ok = std::get<parse::ResolvedCall>(resolved);
      call.tool = std::move(ok.tool);
      call.params = std::move(ok.params);
    }
  }
  if (call.tool.empty()) call.tool = submission.name;
  submitted_[call.id] = Submitted{call, submission.write_result};
  if (!marked_.count(call.id)) ctx_.feedback.mark(buf_, call.id, call.start, call.end - 1);
  marked_[call.id] = call.start;
  if (!problem.empty()) return finish_refused(call, problem, Origin::User);
  tools::Approval approval = tools::auto_accept(call, ctx_.config, root_, ctx_.remote);
  if (approval.auto_run()) return start(call, Origin::User, /*automatic=*/true);
  // A custom tool's auto_accept function is not asked here: the user approves.
  hold(call, approval.reason);
}

}  // namespace toolhost::session
