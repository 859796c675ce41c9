// An outside agent's calls (SPEC 13.5): the host writes each into the agent's buffer as a
// block, and from there it is a chat block like any other, but that it starts (or waits for
// approval) as soon as it is parsed, whatever the buffer's auto_run, and no chain follows it.

#include "base/log.h"
#include "parse/call_id.h"
#include "parse/message_parser.h"
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
  tools::Approval approval = tools::auto_accept(*call, ctx_.config, root_, ctx_.remote);
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

std::optional<parse::ToolCall> Session::agent_call_ahead(
    const std::vector<std::string>& message) const {
  if (!ready_ || detached_) return std::nullopt;
  // Read as the parser will read it once appended (the message's rows after its header): the
  // same options, the same tool and parameters.
  if (message.size() < 2) return std::nullopt;
  parse::MessageCalls alone = parse::parse_message(message, 1, static_cast<int>(message.size()),
                                                   parser_.options(), /*open_end=*/false);
  if (alone.calls.size() != 1 || !alone.errors.empty()) return std::nullopt;
  parse::ToolCall call = std::move(alone.calls.front());
  if (call.status != core::Status::Pending) return std::nullopt;
  if (!tools::auto_accept(call, ctx_.config, root_, ctx_.remote).auto_run()) return std::nullopt;
  // Its id counts the identical calls above it (SPEC 3): those of the mirror (the parser keeps
  // their count), then those started ahead whose blocks are on their way (their ids are the
  // next ones, in order).
  const uint64_t content = alone.content_hashes.front();
  for (int k = parser_.identical_calls(content);; ++k) {
    call.id = parse::call_id_from_hash(content, k);
    if (!ahead_.count(call.id)) break;
  }
  call.start = call.end = -1;
  call.message = -1;
  return call;
}

bool Session::start_agent_call_ahead(const parse::ToolCall& call) {
  if (active_.count(call.id) || ahead_.count(call.id)) return false;
  ahead_.insert(call.id);
  if (!launch(call, Origin::User, /*automatic=*/true, /*placed=*/false)) {
    ahead_.erase(call.id);
    return false;
  }
  return true;
}

void Session::place_agent_call(const parse::ToolCall& call) {
  ahead_.erase(call.id);
  if (auto running = active_.find(call.id); running != active_.end()) {
    Active& active = running->second;
    active.call = call;
    active.block = rows(call.start, call.end);
    active.placed = true;
    active.shown_second = -1;  // its running diagnostic at once
    active.stream_dirty = !active.tail.lines().empty();
    if (const jobs::JobInfo* job = ctx_.engine.find(active.job_id);
        job && job->status == core::Status::Queued) {
      ctx_.feedback.diagnostic(buf_, call.id, call.start, Severity::Hint,
                               "⟳ " + call.tool + " (queued)");
    }
    show_progress(call.id, active);
    return;
  }
  auto ended = ended_ahead_.find(call.id);
  if (ended == ended_ahead_.end()) return;
  EndedAhead end = std::move(ended->second);
  ended_ahead_.erase(ended);
  // The observer heard of its end already; it is told again here and finds no one waiting.
  write_result(call, rows(call.start, call.end), end.job, std::move(end.body), end.message);
  announce_finished(end.job);
  after_handled(call.id, end.job.status, /*chained=*/false, end.origin);
}

void Session::agent_block_written(const std::string& call_id, int row) {
  if (!ahead_.count(call_id)) return;
  // Lua answers after the lines event of its write: the parse holds the block at `row`.
  const parse::ToolCall* block = row >= 0 ? call_starting_at(row) : nullptr;
  if (!block || block->status != core::Status::Pending || taken_by_another(block->id, call_id) ||
      !same_call(*block, call_id)) {
    // Lua could not write it, or the block there reads otherwise (the buffer changed). Its
    // job answers the agent under a key no block has: the next identical block takes its id.
    ahead_.erase(call_id);
    ended_ahead_.erase(call_id);
    rekey(call_id, call_id + " (unwritten)");
    log::warn("session: an agent's call " + call_id + " written at row " + std::to_string(row) +
              " did not read back as started; its result goes to the agent only");
    return;
  }
  if (block->id != call_id) {
    ahead_.erase(call_id);
    ahead_.insert(block->id);
    rekey(call_id, block->id);
  }
  place_agent_call(*block);
}

bool Session::taken_by_another(const std::string& block_id, const std::string& call_id) const {
  // Another call's job, or another call started ahead, has that block already.
  return block_id != call_id && (active_.count(block_id) || ahead_.count(block_id));
}

bool Session::same_call(const parse::ToolCall& block, const std::string& call_id) const {
  auto it = active_.find(call_id);
  if (it != active_.end()) {
    return block.tool == it->second.call.tool && block.params == it->second.call.params;
  }
  auto ended = ended_ahead_.find(call_id);
  return ended != ended_ahead_.end() && block.tool == ended->second.job.spec.tool &&
         block.params == ended->second.job.spec.params;
}

void Session::rekey(const std::string& from, const std::string& to) {
  std::string job_id;
  if (auto it = active_.find(from); it != active_.end()) {
    Active active = std::move(it->second);
    active_.erase(it);
    active.call.id = to;
    job_id = active.job_id;
    active_.emplace(to, std::move(active));
    renamed_[from] = to;  // its job's events name `from`
  }
  if (auto it = ended_ahead_.find(from); it != ended_ahead_.end()) {
    EndedAhead ended = std::move(it->second);
    ended_ahead_.erase(it);
    ended.job.spec.call_id = to;
    job_id = ended.job.id;
    ended_ahead_.emplace(to, std::move(ended));
  }
  // The job history (and the block that now has `from`, which never ran) must not take the job
  // for `from`'s.
  if (const jobs::JobInfo* job = job_id.empty() ? nullptr : ctx_.engine.rename_call(job_id, to)) {
    ctx_.feedback.job(job_entry(*job, buf_));
  }
  if (ctx_.observer) ctx_.observer->call_renamed(buf_, from, to);
}

const std::string& Session::current_id(const std::string& call_id) const {
  auto it = renamed_.find(call_id);
  return it == renamed_.end() ? call_id : it->second;
}

}  // namespace toolhost::session
