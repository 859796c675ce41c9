#include "mcp_server_fakes.h"

namespace toolhost::mcp_fuzz {
namespace {

// Past Server::kProgressIntervalMs, so that the progress timer fires while the call runs.
constexpr uint64_t kSlowMs = mcp::Server::kProgressIntervalMs + 10;

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

mcp::Tool tool(const char* name, const char* schema) {
  mcp::Tool tool;
  tool.name = name;
  tool.description = std::string("The fuzzer's ") + name;
  tool.input_schema = Json::parse(schema);
  return tool;
}

}  // namespace

FakeBackend::FakeBackend(uv_loop_t* loop, Oracle& oracle, uint8_t seed, bool slow_waits)
    : loop_(loop),
      oracle_(oracle),
      seed_(seed),
      slow_used_(!slow_waits),
      idle_(std::make_unique<uv_idle_t>()),
      slow_timer_(std::make_unique<uv_timer_t>()) {
  uv_idle_init(loop_, idle_.get());
  idle_->data = this;
  uv_timer_init(loop_, slow_timer_.get());
  slow_timer_->data = this;
}

std::vector<mcp::Tool> FakeBackend::tool_list() {
  static const std::vector<mcp::Tool> tools{
      tool("echo", R"({"type":"object","properties":{"text":{"type":"string"},
          "repeat":{"type":"integer","minimum":0,"maximum":3}},"required":["text"]})"),
      tool("count", R"({"type":"object","properties":{"n":{"type":"integer","minimum":0,
          "maximum":5},"unit":{"enum":["lines","bytes"]},"flags":{"type":"array",
          "items":{"type":"boolean"}}},"required":["n"],"additionalProperties":false})"),
      tool("strict", R"({"type":"object","properties":{"path":{"type":"string"},
          "mode":{"type":["string","null"]},"options":{"type":"object","properties":{
          "depth":{"type":"number"}},"required":["depth"]}},"required":["path"],
          "additionalProperties":false})"),
      tool("slow", R"({"type":"object","additionalProperties":false})"),
  };
  return tools;
}

std::vector<std::string> FakeBackend::tool_names() {
  std::vector<std::string> names;
  for (const mcp::Tool& tool : tool_list()) names.push_back(tool.name);
  return names;
}

void FakeBackend::start(Call call, Sink sink) {
  oracle_.on_start(call);
  const uint32_t bits = mix(seed_ * 0x9e3779b9U ^ static_cast<uint32_t>(call.id));
  const bool bad_bytes = bits & 0x20;
  const std::string tail = bad_bytes ? "\xff\n\x01 \xc3" : "";
  Plan plan;
  plan.ignores_cancel = bits & 0x08;
  plan.hangs = (bits & 0xc0) == 0xc0;
  plan.is_error = bits & 0x10;
  plan.result = call.tool + " done" + tail;
  int outputs = static_cast<int>(bits & 3);
  if (call.tool == "echo") {
    plan.result = call.arguments.value("text", std::string()) + tail;
  } else if (call.tool == "count") {
    const Json& n = call.arguments["n"];
    outputs = n.is_number() && n >= 0 && n <= 5 ? n.get<int>() : 0;
  }
  sinks_[call.id] = std::move(sink);
  plans_[call.id] = plan;

  if (call.tool == "slow" && !slow_used_) {
    slow_used_ = true;
    plans_[call.id].hangs = false;  // the timer finishes it
    run(Event{call.id, false, "slow started" + tail, false});
    schedule(turn_ + 1, Event{call.id, false, "slow still running", false});
    slow_call_ = call.id;
    uv_timer_start(
        slow_timer_.get(), [](uv_timer_t* t) { static_cast<FakeBackend*>(t->data)->slow_done(); },
        kSlowMs, 0);
    return;
  }
  const bool at_once = bits & 0x04;
  const uint64_t gap = 1 + ((bits >> 8) & 1);
  for (int i = 1; i <= outputs; ++i) {
    Event output{call.id, false, "line " + std::to_string(i) + tail, false};
    if (at_once) {
      run(output);
    } else {
      schedule(turn_ + gap * static_cast<uint64_t>(i), output);
    }
  }
  if (plan.hangs) return;
  Event done{call.id, true, plan.result, plan.is_error};
  if (at_once) {
    run(done);
  } else {
    schedule(turn_ + gap * static_cast<uint64_t>(outputs + 1), done);
  }
}

void FakeBackend::cancel(uint64_t id, const std::string&) {
  oracle_.on_cancel(id);
  const Plan& plan = plans_[id];
  if (plan.ignores_cancel) {
    // It finishes anyway (the server must not answer), even one that would have hung.
    if (plan.hangs) schedule(turn_ + 1, Event{id, true, plan.result, plan.is_error});
    return;
  }
  for (auto it = events_.begin(); it != events_.end();) {
    it = it->second.call == id ? events_.erase(it) : std::next(it);
  }
  if (slow_call_ == id) {
    slow_call_ = 0;
    uv_timer_stop(slow_timer_.get());
  }
}

void FakeBackend::close() {
  for (uv_handle_t* handle : {reinterpret_cast<uv_handle_t*>(idle_.get()),
                              reinterpret_cast<uv_handle_t*>(slow_timer_.get())}) {
    if (!uv_is_closing(handle)) uv_close(handle, nullptr);
  }
}

void FakeBackend::schedule(uint64_t due, Event event) {
  events_.emplace(due, std::move(event));
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(idle_.get()))) {
    uv_idle_start(idle_.get(),
                  [](uv_idle_t* idle) { static_cast<FakeBackend*>(idle->data)->turn(); });
  }
}

void FakeBackend::turn() {
  ++turn_;
  while (!events_.empty() && events_.begin()->first <= turn_) {
    Event event = std::move(events_.begin()->second);
    events_.erase(events_.begin());
    run(event);
  }
  if (events_.empty()) uv_idle_stop(idle_.get());
}

void FakeBackend::run(const Event& event) {
  Sink sink = sinks_[event.call];  // a copy: the sink may outlive the server, never this
  if (event.done) {
    mcp::CallResult result{event.text, event.is_error};
    size_t mark = oracle_.on_done(event.call, result);
    sink.done(result);
    oracle_.after_done(event.call, mark);
  } else {
    size_t mark = oracle_.on_output(event.call, event.text);
    sink.output(event.text);
    oracle_.after_output(event.call, mark);
  }
}

void FakeBackend::slow_done() {
  uint64_t id = slow_call_;
  slow_call_ = 0;
  if (id == 0) return;
  const Plan& plan = plans_[id];
  run(Event{id, true, plan.result, plan.is_error});
}

}  // namespace toolhost::mcp_fuzz
