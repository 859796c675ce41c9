#include "server/agent_backend.h"

#include "agents/call_message.h"
#include "agents/call_result.h"
#include "server/agent_hub.h"
#include "tools/policy.h"

namespace toolhost::server {

AgentBackend::AgentBackend(AgentHub& hub) : hub_(hub) {}

AgentBackend::~AgentBackend() {
  *alive_ = false;
  for (auto& [id, call] : calls_) {
    if (!call.call_id.empty()) hub_.unbind(call.buf, call.call_id);
  }
}

std::vector<mcp::Tool> AgentBackend::tools() {
  // The host's configuration now: setup() may have added custom tools since the agent came.
  return hub_.tools();
}

void AgentBackend::start(Call call, Sink sink) {
  call.client = agents::client_label(call.client);
  agents::CallMessage message =
      agents::call_message(call.client, call.tool, call.arguments, hub_.config().roles);
  core::ToolCall probe;
  probe.tool = call.tool;
  probe.params = call.arguments;
  const bool needs_approval = !tools::auto_accept(probe, hub_.config(), hub_.root()).auto_run();
  Pending& pending = calls_[call.id];
  pending.sink = std::move(sink);
  pending.tool = call.tool;
  std::weak_ptr<bool> alive = alive_;
  const uint64_t id = call.id;
  const int offset = message.block_offset;
  if (!needs_approval) {
    if (auto ahead = start_ahead(id, call.client, message)) {
      // Running already: Lua writes its block, and the session binds the job to it. The
      // session hears where it went even when this connection has closed meanwhile.
      const auto [buf, call_id] = *ahead;
      AgentHub* hub = &hub_;
      hub_.append(call.client, message, false,
                  [hub, hub_alive = hub_.alive(), buf, call_id, offset](const std::string& error,
                                                                        int64_t at, int row) {
                    if (hub_alive.expired()) return;
                    session::Session* session = hub->session(buf);
                    if (!session) return;
                    session->agent_block_written(call_id,
                                                 error.empty() && at == buf ? row + offset : -1);
                  });
      return;
    }
  }
  hub_.append(call.client, message, needs_approval,
              [this, alive, id, offset](const std::string& error, int64_t buf, int row) {
                if (auto live = alive.lock(); live && *live) appended(id, error, buf, row + offset);
              });
}

std::optional<std::pair<int64_t, std::string>> AgentBackend::start_ahead(
    uint64_t id, const std::string& client, const agents::CallMessage& message) {
  session::Session* session = hub_.agent_session(client);
  if (!session) return std::nullopt;  // its buffer is made (or read) by the append
  std::optional<parse::ToolCall> call = session->agent_call_ahead(message.lines);
  if (!call) return std::nullopt;
  Pending& pending = calls_[id];
  pending.buf = session->buf();
  pending.call_id = call->id;
  // Bound first: the job's events come from the session.
  hub_.bind(pending.buf, pending.call_id, this, id);
  if (!session->start_agent_call_ahead(*call)) {
    hub_.unbind(pending.buf, pending.call_id);
    pending.buf = 0;
    pending.call_id.clear();
    return std::nullopt;
  }
  hub_.after_start();
  return std::make_pair(session->buf(), call->id);
}

void AgentBackend::appended(uint64_t id, const std::string& error, int64_t buf, int block_row) {
  if (!calls_.count(id)) return;
  if (!error.empty()) return fail(id, "toolhost could not write the call into Neovim: " + error);
  session::Session* session = hub_.session(buf);
  if (!session) return fail(id, "the agent's buffer is not attached to toolhost");
  std::weak_ptr<bool> alive = alive_;
  // Lua attached the buffer before it answered: the session reads it first if it is new.
  session->when_ready([this, alive, id, buf, block_row] {
    if (auto live = alive.lock(); live && *live) bind(id, buf, block_row);
  });
}

void AgentBackend::bind(uint64_t id, int64_t buf, int block_row) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  session::Session* session = hub_.session(buf);
  if (!session || session->detached()) return fail(id, "the agent's buffer was closed");
  const parse::ToolCall* call = session->call_starting_at(block_row);
  if (!call || call->tool != it->second.tool) {
    return fail(id, "the call's block did not read back as " + it->second.tool + " at line " +
                        std::to_string(block_row + 1) + " of the agent's buffer");
  }
  Pending& pending = it->second;
  pending.buf = buf;
  pending.call_id = call->id;
  session->set_agent_buffer(true);
  // Bound first: a call refused at once ends inside start_agent_call.
  hub_.bind(buf, pending.call_id, this, id);
  if (pending.cancelled) {
    const std::string call_id = pending.call_id, reason = pending.cancel_reason;
    hub_.unbind(buf, call_id);
    calls_.erase(it);
    session->end_agent_call(call_id, reason);
    return;
  }
  if (!session->start_agent_call(pending.call_id)) {
    hub_.unbind(buf, pending.call_id);
    return fail(id, "the call's block in the agent's buffer has already run");
  }
  hub_.after_start();
}

void AgentBackend::cancel(uint64_t id, const std::string& reason) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Pending& pending = it->second;
  if (pending.call_id.empty()) {
    // Not in the buffer yet: ended once it is.
    pending.cancelled = true;
    pending.cancel_reason = reason;
    pending.sink = {};
    return;
  }
  const int64_t buf = pending.buf;
  const std::string call_id = pending.call_id;
  hub_.unbind(buf, call_id);
  calls_.erase(it);
  if (session::Session* session = hub_.session(buf)) session->end_agent_call(call_id, reason);
}

void AgentBackend::renamed(uint64_t id, const std::string& call_id) {
  if (auto it = calls_.find(id); it != calls_.end()) it->second.call_id = call_id;
}

void AgentBackend::output(uint64_t id, const std::vector<std::string>& lines) {
  auto it = calls_.find(id);
  if (it == calls_.end() || !it->second.sink.output) return;
  it->second.sink.output(agents::join_lines(lines));
}

void AgentBackend::ended(uint64_t id, const jobs::JobInfo& job,
                         const std::vector<std::string>& body) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Sink sink = std::move(it->second.sink);
  calls_.erase(it);
  if (sink.done) sink.done(agents::call_result(job, body));
}

void AgentBackend::fail(uint64_t id, const std::string& message) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Sink sink = std::move(it->second.sink);
  calls_.erase(it);
  if (sink.done) sink.done(mcp::CallResult{message, true});
}

}  // namespace toolhost::server
