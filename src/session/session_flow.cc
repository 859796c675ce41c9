// The agent loop of a chat buffer (SPEC 4): approvals, rejections, :ToolRunAll, the auto-run
// chain and ToolhostAllDone. The rest of Session: session.cc (mirror, jobs), session_results.cc.
#include <algorithm>

#include "base/log.h"
#include "parse/messages.h"
#include "parse/parser.h"
#include "session/session.h"
#include "session/timed_call.h"
#include "tools/policy.h"

namespace toolhost::session {
namespace {

// A custom tool's auto_accept function has this long to answer (SPEC 7).
constexpr uint64_t kAutoAcceptTimeoutMs = 1000;

}  // namespace

const parse::Message* Session::last_assistant() const {
  const auto& messages = parser_.result().messages;
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role == core::Role::Assistant) return &*it;
  }
  return nullptr;
}

// The calls of the last assistant message, in buffer order.
std::vector<const parse::ToolCall*> Session::reply_calls() const {
  std::vector<const parse::ToolCall*> calls;
  const parse::Message* message = last_assistant();
  if (!message) return calls;
  const int index = static_cast<int>(message - parser_.result().messages.data());
  for (const auto& call : parser_.result().calls) {
    if (call.message == index) calls.push_back(&call);
  }
  return calls;
}

namespace {

nlohmann::json parse_summary(const parse::ParseResult& result) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& call : result.calls) {
    calls.push_back({{"id", call.id},
                     {"tool", call.tool},
                     {"message", call.message},
                     {"start", call.start},
                     {"status", core::to_string(call.status)}});
  }
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : result.messages) {
    messages.push_back(
        {{"role", core::to_string(message.role)}, {"start", message.start}, {"end", message.end}});
  }
  return {{"calls", std::move(calls)}, {"messages", std::move(messages)}};
}

}  // namespace

nlohmann::json Session::parse_check() const {
  nlohmann::json now = parse_summary(parser_.result());
  nlohmann::json fresh = parse_summary(parse::parse(parser_.lines(), parser_.options()));
  const bool agrees = now == fresh;
  nlohmann::json check = {{"calls", now["calls"]}, {"parse_agrees", agrees}};
  if (!agrees) check["fresh_calls"] = fresh["calls"];
  return check;
}

const jobs::JobInfo* Session::history_job(const std::string& call_id) const {
  return ctx_.engine.newest_for_call(name_, call_id);
}

bool Session::pending(const parse::ToolCall& call) const {
  return call.status == core::Status::Pending && !active_.count(call.id) && !history_job(call.id);
}

const parse::ToolCall* Session::find_call(const std::string& id) const {
  for (const auto& call : parser_.result().calls) {
    if (call.id == id) return &call;
  }
  auto submitted = submitted_.find(id);
  return submitted == submitted_.end() ? nullptr : &submitted->second.call;
}

const parse::ToolCall* Session::first_awaiting() const {
  if (agent_buffer_) {
    // An agent's calls are approved in the order they arrived (awaiting_'s order).
    for (const auto& id : awaiting_) {
      if (const parse::ToolCall* call = find_call(id)) return call;
    }
    return nullptr;
  }
  for (const parse::ToolCall* call : reply_calls()) {
    if (std::find(awaiting_.begin(), awaiting_.end(), call->id) != awaiting_.end()) return call;
  }
  // Else the oldest structured call that waits (submit()).
  for (const auto& id : awaiting_) {
    if (auto submitted = submitted_.find(id); submitted != submitted_.end()) {
      return &submitted->second.call;
    }
  }
  return nullptr;
}

std::string Session::approval_hint(const std::string& tool) const {
  return "? " + tool + " awaiting approval (" + run_key_ + " run, " + reject_key_ + " reject)";
}

void Session::set_keys(std::string run, std::string reject) {
  run_key_ = run.empty() ? ":ToolRun" : std::move(run);
  reject_key_ = reject.empty() ? ":ToolReject" : std::move(reject);
}

void Session::hold(const parse::ToolCall& call, const std::string& reason) {
  if (std::find(awaiting_.begin(), awaiting_.end(), call.id) == awaiting_.end()) {
    awaiting_.push_back(call.id);
    ctx_.feedback.awaiting(buf_, awaiting_);
  }
  // The exact hint of SPEC 5, then why policy held the call.
  ctx_.feedback.diagnostic(buf_, call.id, call.start, Severity::Hint,
                           approval_hint(call.tool) + ": " + reason);
}

void Session::release(const std::string& call_id) {
  auto it = std::find(awaiting_.begin(), awaiting_.end(), call_id);
  if (it == awaiting_.end()) return;
  awaiting_.erase(it);
  ctx_.feedback.awaiting(buf_, awaiting_);
}

void Session::reply_complete(bool idle, int first_row) {
  if (idle) {
    // Only a reply that changed while attached, by anyone but toolhost, and whose last block
    // is closed: opening an old transcript, or editing a message above the reply, runs
    // nothing (SPEC 4, rule c).
    const parse::Message* message = last_assistant();
    if (!message || first_row < message->start || first_row >= message->end) return;
    for (const parse::ToolCall* call : reply_calls()) {
      if (call->status == core::Status::Incomplete) return;
    }
  }
  take(parser_.set_complete(true));
  sync_feedback();
  handled_ = false;
  all_done_sent_ = false;
  if (!auto_run_) return;
  chain_ = true;
  continue_chain();
}

void Session::continue_chain() {
  if (!chain_ || detached_) return;
  for (const parse::ToolCall* call : reply_calls()) {
    if (auto running = active_.find(call->id); running != active_.end()) {
      // One at a time, in order: whoever started it, the chain goes on after it.
      running->second.chain_waits = true;
      return;
    }
    if (!pending(*call)) continue;
    if (std::find(awaiting_.begin(), awaiting_.end(), call->id) != awaiting_.end()) return;
    tools::Approval approval = tools::auto_accept(*call, ctx_.config, root_, ctx_.remote);
    if (approval.verdict == tools::Approval::Verdict::Yes) {
      return start(*call, Origin::Chain, /*automatic=*/true);
    }
    if (approval.verdict == tools::Approval::Verdict::No || !ctx_.editor) {
      return hold(*call, approval.reason);
    }
    // A custom tool's auto_accept function decides, in Neovim, within a second.
    const std::string id = call->id;
    nlohmann::json args = {{"name", call->tool}, {"params", call->params}};
    timed_call(
        ctx_.loop, *ctx_.editor, "auto_accept", std::move(args), kAutoAcceptTimeoutMs,
        [this, id, alive = std::weak_ptr<bool>(alive_)](core::Result<nlohmann::json> answer) {
          if (alive.expired()) return;  // the buffer went meanwhile
          const parse::ToolCall* now = find_call(id);
          if (!chain_ || !now || !pending(*now)) return;
          if (answer && answer->value("ok", false)) {
            return start(*now, Origin::Chain, /*automatic=*/true);
          }
          hold(*now, answer ? "its auto_accept function said no"
                            : "its auto_accept function failed: " + answer.error());
        });
    return;
  }
  chain_ = false;
  maybe_all_done();
}

void Session::after_handled(const std::string& call_id, core::Status status, bool chained,
                            Origin origin) {
  if (!handled_) {
    for (const parse::ToolCall* call : reply_calls()) handled_ = handled_ || call->id == call_id;
  }
  if (chained && chain_) {
    // A failure, rejection or cancel stops the chain (SPEC 4).
    if (status == core::Status::Succeeded) {
      continue_chain();
    } else {
      chain_ = false;
    }
  }
  if (origin == Origin::RunAll) pump_run_all();
  maybe_all_done();
}

void Session::maybe_all_done() {
  if (all_done_sent_ || !handled_ || detached_ || !run_all_.empty()) return;
  // The newest calls first: calls queued at once end about in order, so the last ones are
  // still running until near the end (from the first, each end walked up to the first call
  // still running: 1,000 calls queued at once cost half a million lookups).
  const std::vector<const parse::ToolCall*> calls = reply_calls();
  for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
    const parse::ToolCall* call = *it;
    if (active_.count(call->id)) return;
    if (std::find(awaiting_.begin(), awaiting_.end(), call->id) != awaiting_.end()) return;
    // The chain goes on to it (or asks its auto_accept function); once the chain stopped (a
    // failure, rejection or cancel), a pending call waits for the user like any other.
    if (chain_ && pending(*call) &&
        tools::auto_accept(*call, ctx_.config, root_, ctx_.remote).verdict !=
            tools::Approval::Verdict::No) {
      return;
    }
  }
  all_done_sent_ = true;
  ctx_.feedback.event("ToolhostAllDone", {{"buf", buf_}});
}

void Session::reject_at(int row, const std::string& reason) {
  const parse::ToolCall* call =
      call_at(row, [this](const parse::ToolCall& c) { return pending(c); });
  if (!call || !pending(*call)) {
    if (const parse::ToolCall* waiting = first_awaiting()) call = waiting;
  }
  if (!call) return ctx_.feedback.notify("No tool call under the cursor", "error");
  if (active_.count(call->id)) {
    return ctx_.feedback.notify("This tool call is running: :ToolCancel stops it", "warn");
  }
  if (!pending(*call)) return ctx_.feedback.notify("This tool call has already run", "warn");
  std::vector<std::string> body = {"The user declined to run this tool call."};
  if (!reason.empty()) body.push_back("Reason: " + reason);
  end_unrun(*call, core::Status::Rejected, reason, std::move(body));
}

void Session::end_unrun(const parse::ToolCall& pending_call, core::Status status,
                        const std::string& reason, std::vector<std::string> body) {
  const parse::ToolCall call = pending_call;  // the parse may change under what follows
  const bool held = std::find(awaiting_.begin(), awaiting_.end(), call.id) != awaiting_.end();
  release(call.id);
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.buffer_name = name_;
  spec.cwd = root_;  // it ran nowhere; its project lists it (jobs.list { root })
  const jobs::JobInfo& job = ctx_.engine.refuse(std::move(spec), reason, status);
  std::vector<std::string> block = rows(call.start, call.end);
  write_result(call, block, job, std::move(body),
               "✗ " + call.tool + ": " + std::string(core::to_string(status)));
  ctx_.feedback.job(job_entry(job, buf_));
  announce_finished(job);
  after_handled(call.id, status, held, Origin::User);
}

nlohmann::json Session::run_all_plan() const {
  nlohmann::json calls = nlohmann::json::array();
  for (const parse::ToolCall* call : reply_calls()) {
    if (!pending(*call)) continue;
    tools::Approval approval = tools::auto_accept(*call, ctx_.config, root_, ctx_.remote);
    calls.push_back({{"id", call->id},
                     {"tool", call->tool},
                     {"row", call->start},
                     {"auto", approval.auto_run()},
                     {"reason", approval.reason}});
  }
  return calls;
}

void Session::run_all(const std::vector<std::string>& ids, bool parallel) {
  size_t count = 0;
  for (const parse::ToolCall* call : reply_calls()) {
    if (!pending(*call)) continue;
    if (!ids.empty() && std::find(ids.begin(), ids.end(), call->id) == ids.end()) continue;
    if (std::find(run_all_.begin(), run_all_.end(), call->id) != run_all_.end()) continue;
    run_all_.push_back(call->id);
    release(call->id);  // the user approved them all
    ++count;
  }
  if (count == 0) return ctx_.feedback.notify("No pending tool call in the last reply", "warn");
  run_all_parallel_ = parallel;
  ctx_.feedback.notify("Running " + std::to_string(count) + " tool call(s)…", "info");
  pump_run_all();
}

void Session::pump_run_all() {
  auto busy = [this] {
    return std::any_of(active_.begin(), active_.end(),
                       [](const auto& entry) { return entry.second.origin == Origin::RunAll; });
  };
  while (!run_all_.empty()) {
    const parse::ToolCall* call = find_call(run_all_.front());
    if (!call || !pending(*call)) {
      run_all_.pop_front();
      continue;
    }
    // A call that edits files runs alone, after what came before it (an LLM assumes order).
    const bool writer = tools::writes_files(call->tool);
    if (busy() && (!run_all_parallel_ || writer)) return;
    run_all_.pop_front();
    // What the policy would start unasked starts as auto-run does (in the sandbox, issue #38);
    // the calls the confirmation listed are approved by the user.
    const bool unasked = tools::auto_accept(*call, ctx_.config, root_, ctx_.remote).auto_run();
    start(*call, Origin::RunAll, /*automatic=*/unasked);
    if (!run_all_parallel_ || writer) return;
  }
  maybe_all_done();
}

}  // namespace toolhost::session
