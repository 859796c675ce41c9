// Where a call's end lands: its result written into the buffer (the executed form and the
// result block, or the structured answer of submit()), a refusal, and ToolhostJobFinished.
#include <algorithm>

#include "parse/messages.h"
#include "results/executed_form.h"
#include "results/format.h"
#include "results/result_block.h"
#include "results/text_clean.h"
#include "session/session.h"

namespace toolhost::session {
using results::executed_form;
using results::finished_message;
using results::job_body;
using results::keeps_block;
using results::result_block;
using results::ResultOptions;
using results::signal_name;

nlohmann::json job_event_data(const jobs::JobInfo& job, int64_t buf) {
  nlohmann::json data = {{"id", job.id},
                         {"tool", job.spec.tool},
                         {"status", core::to_string(job.status)},
                         {"call_id", job.spec.call_id},
                         {"buf", buf},
                         {"duration", job.duration_s}};
  if (job.exit_code) data["exit_code"] = *job.exit_code;
  if (job.term_signal) data["signal"] = signal_name(*job.term_signal);
  return data;
}

bool Session::starts_message(std::string_view line) const {
  return parse::role_header(line, ctx_.config.roles).has_value();
}

void Session::on_finished(const std::string& call_id, const jobs::JobInfo& job) {
  auto it = active_.find(call_id);
  if (it == active_.end() || it->second.job_id != job.id) return;
  Active active = std::move(it->second);
  active_.erase(it);
  ctx_.feedback.job(job_entry(job, buf_));
  ResultOptions options;
  options.max_lines = ctx_.config.output.max_lines;
  if (!active.placed) {
    // An agent's call started ahead of its block: the agent gets its result now, the block
    // when the parse shows it (place_agent_call).
    std::vector<std::string> body = job_body(job, options);
    if (ctx_.observer) ctx_.observer->call_ended(buf_, call_id, job, body);
    if (ahead_.count(call_id)) {
      ended_ahead_[call_id] =
          EndedAhead{active.origin, job, std::move(body), finished_message(job)};
    }
    return;
  }
  ctx_.feedback.stream(buf_, active.call.id, {});
  write_result(active.call, active.block, job, job_body(job, options), finished_message(job));
  announce_finished(job);
  after_handled(active.call.id, job.status, active.origin == Origin::Chain || active.chain_waits,
                active.origin);
}

void Session::write_result(const parse::ToolCall& call, const std::vector<std::string>& block,
                           const jobs::JobInfo& job, std::vector<std::string> body,
                           const std::string& message) {
  if (ctx_.observer) ctx_.observer->call_ended(buf_, call.id, job, body);
  if (detached_) return;  // the buffer is gone: only the job record keeps the result
  ResultOptions options;
  options.part = call.part;
  options.starts_message = [this](std::string_view line) { return starts_message(line); };
  Severity severity = job.status == core::Status::Succeeded ? Severity::Info : Severity::Error;
  if (auto submitted = submitted_.find(call.id); submitted != submitted_.end()) {
    // A structured call: the chat plugin gets the result; the buffer only if it asked.
    submitted->second.call.status = job.status;
    std::string output;
    for (const auto& line : body) output += line + "\n";
    ctx_.feedback.submitted({{"id", call.id},
                             {"job", job.id},
                             {"status", core::to_string(job.status)},
                             {"output", output}});
    if (!submitted->second.write_result) {
      return ctx_.feedback.diagnostic(buf_, call.id, call.start, severity, message);
    }
  }
  std::vector<std::string> result = result_block(job, std::move(body), options);
  Feedback::Rewrite rewrite;
  rewrite.key = call.id;
  rewrite.job_id = job.id;
  rewrite.expect = block;
  rewrite.fallback = result;
  const size_t block_rows = static_cast<size_t>(call.end - call.start);
  const bool rerun = call.result && block.size() > block_rows;
  if (rerun) {
    // The block and its old result block are replaced by the block and the new result.
    rewrite.lines = results::rerun_form(
        call, std::vector<std::string>(block.begin(), block.begin() + block_rows), job.status);
    rewrite.lines.insert(rewrite.lines.end(), result.begin(), result.end());
  } else if (keeps_block(call)) {
    rewrite.lines = std::move(result);
  } else {
    rewrite.lines = executed_form(call, block, job.status);
    rewrite.lines.insert(rewrite.lines.end(), result.begin(), result.end());
  }
  // Re-attached but not read yet: the result waits for the buffer (and Lua's extmark).
  when_ready([this, call, rerun, rewrite = std::move(rewrite), severity, message]() mutable {
    if (keeps_block(call) && !rerun) place_after_earlier_parts(call, rewrite);
    ctx_.feedback.rewrite(buf_, std::move(rewrite));
    ctx_.feedback.diagnostic(buf_, call.id, call.start, severity, message);
  });
}

void Session::announce_finished(const jobs::JobInfo& job) {
  // After the result it announces, also when that waits for a re-attached buffer.
  auto fire = [this, data = job_event_data(job, buf_)] {
    ctx_.feedback.event("ToolhostJobFinished", data);
  };
  if (detached_) return fire();
  when_ready(std::move(fire));
}

void Session::place_after_earlier_parts(const parse::ToolCall& call,
                                        Feedback::Rewrite& rewrite) const {
  rewrite.insert = true;
  const auto& calls = parser_.result().calls;
  auto now = std::find_if(calls.begin(), calls.end(),
                          [&](const parse::ToolCall& c) { return c.id == call.id; });
  const parse::ToolCall& block = now == calls.end() ? call : *now;
  int results_end = block.end;
  for (const auto& other : calls) {
    if (other.start != block.start || other.end != block.end || other.part >= call.part) continue;
    rewrite.after_keys.push_back(other.id);
    if (other.result) results_end = std::max(results_end, other.result->end);
  }
  rewrite.after_rows = results_end - block.end;
}

void Session::finish_refused(const parse::ToolCall& call, const std::string& reason,
                             Origin origin) {
  // Policy refusals are finished calls with a `failed` result, so the model reads why.
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.buffer_name = name_;
  spec.cwd = root_;  // it ran nowhere; its project lists it (jobs.list { root })
  const jobs::JobInfo& job = ctx_.engine.refuse(std::move(spec), reason);
  std::vector<std::string> block = rows(call.start, call.end);
  if (!marked_.count(call.id)) {
    ctx_.feedback.mark(buf_, call.id, call.start, call.end - 1, mirror_tick(call.id));
  }
  write_result(call, block, job, results::refused_body(reason),
               "✗ " + call.tool + ": refused: " + reason);
  ctx_.feedback.job(job_entry(job, buf_));
  announce_finished(job);
  after_handled(call.id, core::Status::Failed, origin == Origin::Chain, origin);
}

}  // namespace toolhost::session
