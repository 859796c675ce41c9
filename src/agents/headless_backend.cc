#include "agents/headless_backend.h"

#include "agents/call_message.h"
#include "agents/call_result.h"
#include "agents/tool_list.h"
#include "parse/call_id.h"
#include "tools/policy.h"
#include "tools/runner.h"

namespace toolhost::agents {
namespace {

constexpr uint64_t kOutputIntervalMs = mcp::Server::kProgressIntervalMs;

jobs::EngineOptions engine_options(const HeadlessBackend::Options& options) {
  jobs::EngineOptions engine;
  engine.state_dir = options.state_dir;
  engine.cache_dir = options.cache_dir;
  return jobs::with_config(std::move(engine), options.config);
}

}  // namespace

HeadlessBackend::HeadlessBackend(uv_loop_t* loop, Options options)
    : loop_(loop),
      options_(std::move(options)),
      tools_(mcp_tools(options_.config)),
      engine_(loop, engine_options(options_)),
      output_timer_(new uv_timer_t) {
  uv_timer_init(loop_, output_timer_);
  output_timer_->data = this;
}

HeadlessBackend::~HeadlessBackend() {
  uv_close(reinterpret_cast<uv_handle_t*>(output_timer_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
}

namespace {

core::ToolCall tool_call_of(const mcp::ToolBackend::Call& call) {
  core::ToolCall tool_call;
  tool_call.tool = call.tool;
  tool_call.params = call.arguments;
  tool_call.dialect = core::Dialect::Json;
  tool_call.id = parse::call_id(tool_call.tool, tool_call.params, 0);
  return tool_call;
}

}  // namespace

std::optional<std::string> HeadlessBackend::approval_needed(const Call& call) const {
  if (options_.approve_all) return std::nullopt;
  tools::Approval approval = tools::auto_accept(tool_call_of(call), options_.config, options_.root);
  if (approval.auto_run()) return std::nullopt;
  std::string reason = approval.reason;
  if (approval.verdict == tools::Approval::Verdict::AskLua) reason += " (a Lua function)";
  return reason;
}

void HeadlessBackend::start(Call call, Sink sink) {
  if (std::optional<std::string> reason = approval_needed(call)) {
    sink.done(not_run(call.tool + " needs approval (" + *reason +
                      "), and approval needs Neovim: no Neovim with toolhost serves " +
                      options_.root + " (or start `toolhost mcp serve --approve all`)"));
    return;
  }
  core::ToolCall tool_call = tool_call_of(call);
  tools::RunContext context{options_.config, options_.root};
  context.automatic = !options_.approve_all;
  auto spec = tools::job_for(tool_call, context);
  const std::string origin = "toolhost://agent/" + client_label(call.client);
  if (!spec) {
    jobs::JobSpec refused;
    refused.tool = tool_call.tool;
    refused.call_id = tool_call.id;
    refused.params = tool_call.params;
    refused.buffer_name = origin;
    engine_.refuse(std::move(refused), spec.error());
    sink.done(not_run(spec.error()));
    return;
  }
  spec->buffer_name = origin;
  const uint64_t id = call.id;
  jobs::JobEvents events;
  events.output = [this, id](const jobs::JobInfo&, jobs::Stream stream, std::string_view data) {
    output(id, stream, data);
  };
  events.finished = [this, id](const jobs::JobInfo& job) {
    auto it = running_.find(id);
    if (it == running_.end()) return;
    Sink done = std::move(it->second.sink);
    running_.erase(it);
    done.done(call_result(job, options_.config));
  };
  Running& running = running_[id];
  running.sink = std::move(sink);
  running.job = engine_.submit(std::move(*spec), std::move(events));
}

void HeadlessBackend::cancel(uint64_t id, const std::string&) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  std::string job = it->second.job;
  running_.erase(it);  // the agent reads no answer any more
  engine_.cancel(job);
}

void HeadlessBackend::output(uint64_t id, jobs::Stream stream, std::string_view data) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  it->second.tail.append(stream, data);
  it->second.unsent = true;
  // The first output goes at once; then at most every interval (cleaning the tail costs a
  // scan, and a flood calls this for every read).
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(output_timer_))) {
    flush_output();
    uv_timer_start(
        output_timer_,
        [](uv_timer_t* timer) {
          auto* self = static_cast<HeadlessBackend*>(timer->data);
          bool sent = false;
          for (auto& [id, running] : self->running_) sent = sent || running.unsent;
          if (!sent) {
            uv_timer_stop(timer);
            return;
          }
          self->flush_output();
        },
        kOutputIntervalMs, kOutputIntervalMs);
  }
}

void HeadlessBackend::flush_output() {
  for (auto& [id, running] : running_) {
    if (!running.unsent) continue;
    running.unsent = false;
    if (running.sink.output) running.sink.output(join_lines(running.tail.lines()));
  }
}

void HeadlessBackend::shutdown(std::function<void()> done) {
  running_.clear();
  uv_timer_stop(output_timer_);
  engine_.shutdown(options_.config.kill_grace_ms, std::move(done));
}

}  // namespace toolhost::agents
