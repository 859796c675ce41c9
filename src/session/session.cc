#include "session/session.h"

#include <algorithm>
#include <unordered_map>

#include "base/log.h"
#include "parse/messages.h"
#include "results/format.h"
#include "results/text_clean.h"
#include "tools/runner.h"

namespace toolhost::session {
using results::finished_message;
using results::running_message;

namespace {

double seconds_since(uint64_t start_ns) {
  return static_cast<double>(uv_hrtime() - start_ns) / 1e9;
}

parse::Options parse_options(const Context& ctx) {
  parse::Options options;
  options.tools = ctx.tools;
  options.roles = ctx.config.roles;
  // Until assistant_done() and the completion rules exist, a fence still open at the end
  // of the last assistant message may be a reply streaming in: incomplete, not an error.
  options.complete = false;
  return options;
}

bool same_errors(const std::vector<parse::ParseError>& a, const std::vector<parse::ParseError>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.line == y.line && x.end == y.end && x.message == y.message;
  });
}

}  // namespace

Session::Session(Context context, int64_t buf, std::string root, std::string name)
    : ctx_(context),
      buf_(buf),
      root_(std::move(root)),
      name_(std::move(name)),
      parser_(parse_options(context)) {}

void Session::when_ready(std::function<void()> action) {
  if (ready_) return action();
  waiting_.push_back(std::move(action));
}

void Session::when_read_or_detached(std::function<void()> answer) {
  if (ready_ || detached_) return answer();
  answers_.push_back(std::move(answer));
}

void Session::load(std::vector<std::string> lines) {
  replace_mirror(std::move(lines), 0);
}

void Session::replace_mirror(std::vector<std::string> lines, int64_t tick) {
  tick_ = tick;
  take(parser_.reset(std::move(lines)));
  after_change(false);
}

void Session::on_lines(const nvim::LinesEvent& event) {
  if (event.last < 0) return replace_mirror(event.lines, event.changedtick);  // the whole buffer
  tick_ = event.changedtick;
  take(parser_.apply(static_cast<int>(event.first), static_cast<int>(event.last), event.lines));
  after_change(event.more);
}

void Session::after_change(bool more) {
  // A change may be the next reply streaming in: its open fence is incomplete again, until
  // the reply is said complete (reply_complete).
  if (parser_.options().complete) take(parser_.set_complete(false));
  if (more) return;  // the rest of this change follows
  sync_feedback();
  if (!ready_) {
    ready_ = true;
    auto waiting = std::move(waiting_);
    for (auto& action : waiting) action();
    auto answers = std::move(answers_);
    for (auto& answer : answers) answer();
  }
}

std::vector<std::string> Session::rows(int first, int end) const {
  // A submitted call's rows come from a chat plugin, not from this mirror: clamp them.
  const int count = static_cast<int>(lines().size());
  first = std::clamp(first, 0, count);
  end = std::clamp(end, first, count);
  return std::vector<std::string>(lines().begin() + first, lines().begin() + end);
}

void Session::take(const parse::ParseDelta& delta) {
  unsynced_.added.insert(unsynced_.added.end(), delta.added.begin(), delta.added.end());
  unsynced_.removed.insert(unsynced_.removed.end(), delta.removed.begin(), delta.removed.end());
}

void Session::sync_feedback() {
  const parse::ParseResult& parsed = parser_.result();
  // An edit adds or removes a call or two; the initial event adds them all, so only a big
  // delta is worth an index.
  std::unordered_map<std::string_view, const parse::ToolCall*> index;
  if (unsynced_.added.size() + unsynced_.removed.size() > 8) {
    for (const auto& call : parsed.calls) index.emplace(call.id, &call);
  }
  auto find = [&](const std::string& id) -> const parse::ToolCall* {
    if (!index.empty()) {
      auto it = index.find(id);
      return it == index.end() ? nullptr : it->second;
    }
    for (const auto& call : parsed.calls) {
      if (call.id == id) return &call;
    }
    return nullptr;
  };
  // New calls get an extmark; existing ones follow edits by themselves, so they are never
  // moved from here (the mirror may lag behind what the user is typing).
  for (const auto& id : unsynced_.removed) {
    if (marked_.count(id) && !active_.count(id) && !find(id)) {
      ctx_.feedback.forget(buf_, id);
      marked_.erase(id);
    }
  }
  // A call started ahead is placed when Lua says where its block went (agent_block_written),
  // not by its id: an identical block typed above it would take that id.
  for (const auto& id : unsynced_.added) {
    const parse::ToolCall* call = find(id);
    if (call && !marked_.count(id)) {
      ctx_.feedback.mark(buf_, id, call->start, call->end - 1, tick_);
      marked_[id] = call->start;
      if (!ahead_.count(id) && call->status == core::Status::Pending) show_history(*call);
    }
  }
  unsynced_ = {};

  if (same_errors(parsed.errors, shown_errors_)) return;
  shown_errors_ = parsed.errors;
  nlohmann::json errors = nlohmann::json::array();
  for (const auto& error : parsed.errors) {
    errors.push_back({{"row", error.line},
                      {"end_row", std::max(error.line, error.end - 1)},
                      {"message", "✗ " + error.message}});
  }
  ctx_.feedback.parse_errors(buf_, std::move(errors));
}

void Session::show_history(const parse::ToolCall& call) {
  // Ran before, but its result block is gone (deleted, or its host died while it ran): it is
  // not pending, and the diagnostic says how it ended (SPEC 3).
  const jobs::JobInfo* job = active_.count(call.id) ? nullptr : history_job(call.id);
  if (!job || !core::is_finished(job->status)) return;
  Severity severity = job->status == core::Status::Succeeded ? Severity::Info : Severity::Error;
  ctx_.feedback.diagnostic(buf_, call.id, call.start, severity, finished_message(*job));
}

const parse::ToolCall* Session::call_at(int row, const CallFilter& preferred) const {
  // A block may hold several calls (an XML <tool> with several <action>s); they share its
  // rows, so the first one the command can act on is meant.
  const parse::ToolCall* first = nullptr;
  auto consider = [&](const parse::ToolCall& call) {
    int end = call.result ? call.result->end : call.end;
    if (row < call.start || row >= end) return false;
    if (preferred(call)) return true;
    if (!first) first = &call;
    return false;
  };
  for (const auto& call : parser_.result().calls) {
    if (consider(call)) return &call;
  }
  for (const auto& [id, submitted] : submitted_) {
    if (consider(submitted.call)) return &submitted.call;
  }
  return first;
}

void Session::run_at(int row, bool force) {
  const parse::ToolCall* call =
      call_at(row, [this](const parse::ToolCall& c) { return pending(c); });
  if (!call) call = first_awaiting();
  if (!call) return ctx_.feedback.notify("No tool call under the cursor", "error");
  run_call(*call, force);
}

bool Session::rerun(const std::string& call_id) {
  const parse::ToolCall* call = find_call(call_id);
  if (!call) return false;
  run_call(*call, true);
  return true;
}

void Session::run_call(const parse::ToolCall& call, bool force) {
  if (auto it = active_.find(call.id); it != active_.end()) {
    return ctx_.feedback.notify("This tool call is already running (" + it->second.job_id + ")",
                                "warn");
  }
  if (call.status == core::Status::Incomplete) {
    return ctx_.feedback.notify(
        "This tool call's block is not closed yet (its closing fence is missing)", "warn");
  }
  if (!pending(call) && !force) {
    // Lua asks (vim.ui.select) and comes back with force.
    const jobs::JobInfo* job = history_job(call.id);
    std::string status = call.status != core::Status::Pending
                             ? std::string(core::to_string(call.status))
                             : std::string(job ? core::to_string(job->status) : "finished");
    return ctx_.feedback.prompt(
        buf_, {{"kind", "rerun"}, {"key", call.id}, {"tool", call.tool}, {"status", status}});
  }
  // Approving a call the chain held lets the chain go on after it (SPEC 4).
  const bool held = std::find(awaiting_.begin(), awaiting_.end(), call.id) != awaiting_.end();
  release(call.id);
  start(call, held && chain_ ? Origin::Chain : Origin::User);
}

void Session::start(const parse::ToolCall& call, Origin origin, bool automatic) {
  launch(call, origin, automatic, /*placed=*/true);
}

bool Session::launch(const parse::ToolCall& call, Origin origin, bool automatic, bool placed) {
  all_done_sent_ = false;
  auto job = tools::job_for(call, tools::RunContext{ctx_.config, root_, ctx_.editor, ctx_.loop,
                                                    buf_, automatic, ctx_.remote});
  if (!job && !placed) return false;
  if (!job) {
    finish_refused(call, job.error(), origin);
    return true;
  }

  jobs::JobSpec spec = std::move(*job);
  spec.buffer_name = name_;
  Active active(ctx_.config.output.stream_lines, ctx_.config.output.stream_width);
  active.call = call;
  active.origin = origin;
  active.placed = placed;
  const std::string call_id = call.id;
  if (placed) {
    // The rewrite expects these rows from the block's first line on (Lua finds it by its
    // mark); a re-run's take its old result block with them.
    active.block = rows(call.start, call.result ? call.result->end : call.end);
    if (call.result) active.replaces = call.result;
    if (!marked_.count(call_id)) {
      ctx_.feedback.mark(buf_, call_id, call.start, call.end - 1, mirror_tick(call_id));
    }
    marked_[call_id] = call.start;
  }
  active.started_ns = uv_hrtime();
  auto [it, inserted] = active_.emplace(call_id, std::move(active));

  jobs::JobEvents events;
  const int64_t buf = buf_;
  Feedback& feedback = ctx_.feedback;
  quickfix::Lists* lists = ctx_.quickfix;
  const auto& custom_tools = ctx_.config.tools;
  events.started = [&feedback, buf, lists, &custom_tools](const jobs::JobInfo& job) {
    feedback.job(job_entry(job, buf));
    feedback.event("ToolhostJobStarted", job_event_data(job, buf));
    if (lists) lists->start(quickfix_start(job, custom_tools));
  };
  events.output = [this, call_id, lists](const jobs::JobInfo& job, jobs::Stream stream,
                                         std::string_view data) {
    if (lists) lists->output(job.id, stream == jobs::Stream::Stderr ? 1 : 0, data);
    if (auto found = active_.find(current_id(call_id)); found != active_.end()) {
      found->second.tail.append(stream, data);
      found->second.stream_dirty = true;
    }
  };
  events.finished = [this, call_id, lists](const jobs::JobInfo& job) {
    if (lists) lists->finish(job.id);
    const std::string id = current_id(call_id);
    renamed_.erase(call_id);
    on_finished(id, job);
  };
  // The job's started feedback goes with its end when it ends soon (Feedback::deferred).
  ctx_.feedback.deferred(kStartedFeedbackDelayMs, [&] {
    it->second.job_id = ctx_.engine.submit(std::move(spec), std::move(events));
  });
  log::info("session: buffer " + std::to_string(buf_) + " runs " + call.tool + " as " +
            it->second.job_id);
  if (!placed) return true;
  ctx_.feedback.deferred(kStartedFeedbackDelayMs, [&] {
    if (const jobs::JobInfo* job = ctx_.engine.find(it->second.job_id);
        job && job->status == core::Status::Queued) {
      ctx_.feedback.diagnostic(buf_, call_id, call.start, Severity::Hint,
                               "⟳ " + call.tool + " (queued)");
    }
    // This job's progress at once; the others' at the next tick (each start re-showing every
    // running job made 1,000 calls started at once cost a million engine lookups).
    show_progress(call_id, it->second);
  });
  return true;
}

void Session::tick() {
  for (auto& [id, active] : active_) show_progress(id, active);
}

void Session::show_progress(const std::string& id, Active& active) {
  const jobs::JobInfo* job = ctx_.engine.find(active.job_id);
  if (!job || job->status != core::Status::Running) return;
  if (!active.placed) {
    // No block to show it under yet: only its agent hears of it.
    if (active.stream_dirty && ctx_.observer) {
      ctx_.observer->call_output(buf_, id, active.tail.lines());
    }
    active.stream_dirty = false;
    return;
  }
  double elapsed = seconds_since(active.started_ns);
  if (static_cast<long>(elapsed) != active.shown_second) {
    active.shown_second = static_cast<long>(elapsed);
    ctx_.feedback.diagnostic(buf_, id, active.call.start, Severity::Hint,
                             running_message(active.call.tool, elapsed));
  }
  if (active.stream_dirty) {
    active.stream_dirty = false;
    std::vector<std::string> tail = active.tail.lines();
    if (ctx_.observer) ctx_.observer->call_output(buf_, id, tail);
    // ToolhostJobOutput: at most once per tick (stream_interval_ms), with what is shown.
    ctx_.feedback.event("ToolhostJobOutput", {{"id", active.job_id},
                                              {"call_id", id},
                                              {"tool", active.call.tool},
                                              {"buf", buf_},
                                              {"lines", tail}});
    ctx_.feedback.stream(buf_, id, std::move(tail));
  }
}

bool Session::cancel_at(int row) {
  const parse::ToolCall* call =
      call_at(row, [this](const parse::ToolCall& c) { return active_.count(c.id) > 0; });
  if (!call) return false;
  auto it = active_.find(call->id);
  return it != active_.end() && ctx_.engine.cancel(it->second.job_id);
}

void Session::detach() {
  detached_ = true;
  ready_ = false;
  waiting_.clear();
  awaiting_.clear();
  run_all_.clear();
  chain_ = false;
  // Lua forgets the buffer's extmarks and diagnostics with it.
  marked_.clear();
  shown_errors_.clear();
  // Their jobs still answer their agents; their blocks get nothing.
  ahead_.clear();
  ended_ahead_.clear();
  // Found by rpc_from_lua: a toolhost.call on a buffer whose attach failed waited for ever.
  auto answers = std::move(answers_);
  for (auto& answer : answers) answer();
}

void Session::set_filetype(std::string_view filetype) {
  take(parser_.set_header_style(parse::header_style_for(filetype)));
  if (ready_) sync_feedback();
}

void Session::tools_changed() {
  take(parser_.set_tools(ctx_.tools));
  if (ready_) sync_feedback();
}

void Session::reattach(std::string root, std::string name) {
  root_ = std::move(root);
  name_ = std::move(name);
  detached_ = false;
  // The host reads the buffer anew (load): every call is new again.
  parser_.reset({});
  unsynced_ = {};
  tick_ = 0;
}

}  // namespace toolhost::session
