#include "mcp_server_oracle.h"

#include <algorithm>

namespace toolhost::mcp_fuzz {
namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

bool has(const Json& object, const char* key) {
  return object.is_object() && object.contains(key);
}

int error_code(const Json& response) {
  if (!has(response, "error")) return 0;
  return response["error"]["code"].get<int>();
}

}  // namespace

Oracle::Oracle(std::string_view input, size_t cap, std::vector<std::string> tool_names)
    : lines_(lines_of(input, cap)), tool_names_(std::move(tool_names)) {}

void Oracle::begin_line(std::string_view line) {
  expect(phase_ == Phase::kServing && !in_line_, "lines are delivered one at a time while open");
  expect(next_line_ < lines_.size() && !line.empty() && lines_[next_line_] == line,
         "the transport delivers the input's lines in order");
  ++next_line_;
  trace("agent:", line);
  in_line_ = true;
  line_ = expect_of(line);
  line_mark_ = log_.size();
  started_in_line_ = 0;
  cancelled_in_line_ = 0;
  active_at_line_ = active_calls();
}

void Oracle::begin_dropped() {
  expect(phase_ == Phase::kServing && !in_line_, "lines are delivered one at a time while open");
  expect(next_line_ < lines_.size() && lines_[next_line_].empty(),
         "only a line over the cap is dropped");
  ++next_line_;
  trace("agent:", "(a line over the cap)");
  in_line_ = true;
  line_ = Expected{};
  line_mark_ = log_.size();
  started_in_line_ = 0;
  cancelled_in_line_ = 0;
  active_at_line_ = active_calls();
}

void Oracle::end_line() {
  in_line_ = false;
  std::vector<Written*> fresh = unclaimed_since(line_mark_);
  for (Written* entry : fresh) entry->claimed = true;
  switch (line_.kind) {
    case Expected::Kind::kParseError:
      expect(fresh.size() == 1, "a line that is not JSON gets one answer");
      expect(error_code(fresh[0]->message) == kParseError && fresh[0]->message["id"].is_null(),
             "a line that is not JSON gets a parse error with id null");
      break;
    case Expected::Kind::kInvalid:
      expect(fresh.size() == 1, "JSON that is not a message gets one answer");
      expect(
          error_code(fresh[0]->message) == kInvalidRequest && fresh[0]->message["id"] == line_.id,
          "JSON that is not a message gets invalid request with its id (or null)");
      break;
    case Expected::Kind::kNotification:
      expect(fresh.empty(), "a notification gets no response");
      if (line_.method == "notifications/cancelled") check_cancel_line();
      break;
    case Expected::Kind::kResponse: expect(fresh.empty(), "a response gets no response"); break;
    case Expected::Kind::kRequest:
      if (started_in_line_ != 0) {
        expect(fresh.empty(), "a started call is answered by its done() alone");
        break;
      }
      expect(fresh.size() == 1, "a request gets exactly one response");
      expect(fresh[0]->message["id"] == line_.id, "a response carries its request's id");
      check_request_answer(fresh[0]->message);
      break;
  }
}

void Oracle::check_request_answer(const Json& response) {
  const std::string& method = line_.method;
  const Json& params = line_.params;
  bool ok = has(response, "result");
  if (method == "ping") {
    expect(ok && response["result"] == Json::object(), "ping is answered {} at any time");
  } else if (method == "initialize") {
    bool fits = has(params, "protocolVersion") && params["protocolVersion"].is_string();
    expect(ok == (!initialized_ && fits),
           "initialize succeeds once, when it has a protocolVersion string");
    if (!ok) {
      expect(error_code(response) == (initialized_ ? kInvalidRequest : kInvalidParams),
             "a second initialize is invalid request, one without a version invalid params");
      return;
    }
    initialized_ = true;
    const std::string requested = params["protocolVersion"].get<std::string>();
    const std::vector<std::string> spoken{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
    bool known = std::find(spoken.begin(), spoken.end(), requested) != spoken.end();
    expect(response["result"]["protocolVersion"] == (known ? requested : spoken[0]),
           "initialize agrees on the offered version or the latest");
    const Json info = params.value("clientInfo", Json());
    client_ =
        has(info, "name") && info["name"].is_string() ? info["name"].get<std::string>() : "agent";
  } else if (method == "server/discover") {
    expect(ok, "server/discover is answered at any time");
  } else if (method == "tools/list" || method == "tools/call" || method == "logging/setLevel") {
    if (!initialized_) {
      expect(error_code(response) == kInvalidRequest,
             "before initialize only ping, initialize and server/discover are served");
      return;
    }
    if (method == "tools/list") {
      expect(ok && response["result"]["tools"].size() == tool_names_.size(), "tools/list lists");
      for (size_t i = 0; i < tool_names_.size(); ++i) {
        expect(response["result"]["tools"][i]["name"] == tool_names_[i], "tools/list lists");
      }
    } else if (method == "logging/setLevel") {
      expect(ok, "logging/setLevel is answered");
    } else {
      bool known = has(params, "name") && params["name"].is_string() &&
                   std::count(tool_names_.begin(), tool_names_.end(), params["name"]) == 1;
      if (!known) {
        expect(error_code(response) == kInvalidParams, "a call to no known tool: invalid params");
      } else {
        expect(ok && response["result"]["isError"] == true,
               "a known tool's call that does not run is an isError result");
      }
    }
  } else {
    expect(error_code(response) == kMethodNotFound, "an unknown method is method not found");
  }
}

void Oracle::check_cancel_line() {
  const Json& params = line_.params;
  if (!has(params, "requestId")) {
    expect(cancelled_in_line_ == 0, "a cancel without requestId stops nothing");
    return;
  }
  const std::string named = params["requestId"].dump();
  if (cancelled_in_line_ != 0) {
    expect(call_of(cancelled_in_line_).request_id.dump() == named,
           "notifications/cancelled stops the call it names");
  }
  std::vector<uint64_t> same;
  for (const CallState& call : calls_) {
    if (call.request_id.dump() == named) same.push_back(call.id);
  }
  if (same.size() == 1 &&
      std::count(active_at_line_.begin(), active_at_line_.end(), same[0]) == 1) {
    expect(cancelled_in_line_ == same[0],
           "notifications/cancelled tells the backend to stop the running call it names");
  }
}

void Oracle::written(const std::string& text) {
  trace("server:", text);
  expect(phase_ == Phase::kServing || phase_ == Phase::kDestroying,
         "nothing is written after the close");
  expect(text.find('\n') == std::string::npos, "a written message holds no newline");
  Json message;
  try {
    message = Json::parse(text);
  } catch (const Json::exception&) {
    expect(false, "every written line is one JSON text");
  }
  expect(message.is_object() && message.value("jsonrpc", Json()) == "2.0",
         "every written line is an object with jsonrpc 2.0");
  log_.push_back(Written{message, false});
  if (has(message, "method")) {
    expect(!has(message, "id") && message["method"] == "notifications/progress",
           "the server sends no request, and no notification but progress");
    progress(log_.back());
    return;
  }
  const Json& id = has(message, "id") ? message["id"] : Json();
  expect(has(message, "id") && (id.is_null() || id.is_string() || id.is_number_integer()),
         "a response has an id");
  expect(has(message, "result") != has(message, "error"), "a response holds result xor error");
  if (has(message, "error")) {
    const Json& error = message["error"];
    expect(has(error, "code") && error["code"].is_number_integer() && has(error, "message") &&
               error["message"].is_string(),
           "an error has an integer code and a message");
  }
}

void Oracle::progress(Written& entry) {
  const Json& params = entry.message.value("params", Json());
  expect(has(params, "progressToken") && has(params, "progress") &&
             params["progress"].is_number() && has(params, "message") &&
             params["message"].is_string(),
         "progress has a token, a number and a message");
  const double value = params["progress"].get<double>();
  CallState* found = nullptr;
  for (CallState& call : calls_) {
    bool fits = call.active() && !call.token.is_null() && call.token == params["progressToken"] &&
                call.unsent && params["message"] == call.last_output &&
                value > static_cast<double>(call.notifications);
    if (fits && (!found || call.id == output_call_)) found = &call;
  }
  expect(found != nullptr,
         "progress only for a running call that sent a progressToken, rising, with its output");
  found->notifications = static_cast<uint64_t>(value);
  found->unsent = false;
  entry.claimed = true;
}

void Oracle::on_start(const mcp::ToolBackend::Call& call) {
  trace("backend: start", call.tool, call.id);
  expect(in_line_ && line_.kind == Expected::Kind::kRequest && line_.method == "tools/call" &&
             started_in_line_ == 0,
         "a call starts from its tools/call line only, once");
  expect(initialized_, "no call runs before initialize");
  const Json& params = line_.params;
  expect(has(params, "name") && params["name"] == call.tool, "the backend runs the named tool");
  Json arguments = has(params, "arguments") ? params["arguments"] : Json::object();
  expect(call.arguments == arguments, "the backend gets the call's arguments");
  expect(call.client == client_, "the backend gets the client's name");
  for (const CallState& other : calls_) expect(other.id != call.id, "call ids are unique");
  CallState state;
  state.id = call.id;
  state.request_id = line_.id;
  const Json meta = params.value("_meta", Json());
  if (has(meta, "progressToken")) {
    const Json& token = meta["progressToken"];
    if (token.is_string() || token.is_number_integer()) state.token = token;
  }
  calls_.push_back(std::move(state));
  started_in_line_ = call.id;
}

size_t Oracle::on_output(uint64_t id, const std::string& text) {
  trace("backend: output", text, id);
  CallState& call = call_of(id);
  if (call.active() && !call.token.is_null() && phase_ != Phase::kGone) {
    call.last_output = cleaned(text);
    call.unsent = true;
  }
  output_call_ = id;
  output_is_first_ = call.notifications == 0;
  return log_.size();
}

void Oracle::after_output(uint64_t id, size_t mark) {
  output_call_ = 0;
  CallState& call = call_of(id);
  expect(unclaimed_since(mark).empty(), "output sends no response");
  size_t sent = log_.size() - mark;
  if (!call.active() || call.token.is_null()) {
    expect(sent == 0, "no progress for a call without a progressToken, or that ended");
    return;
  }
  expect(sent <= 1, "one output sends at most one progress notification");
  if (output_is_first_) {
    expect(sent == 1, "a call's first output is a progress notification at once");
  }
}

size_t Oracle::on_done(uint64_t id, const mcp::CallResult& result) {
  trace("backend: done", result.text, id);
  CallState& call = call_of(id);
  expect(!call.done, "the fake backend finishes a call once");
  call.done = true;
  call.result = {{"content", Json::array({{{"type", "text"}, {"text", cleaned(result.text)}}})},
                 {"isError", result.is_error}};
  return log_.size();
}

void Oracle::after_done(uint64_t id, size_t mark) {
  CallState& call = call_of(id);
  if (!call.active() || phase_ == Phase::kGone) {
    expect(log_.size() == mark, "done() of a cancelled call, or after the close, sends nothing");
    return;
  }
  expect(log_.size() == mark + 1, "a finished call gets exactly one response");
  Written& entry = log_[mark];
  expect(entry.message["id"] == call.request_id && has(entry.message, "result") &&
             entry.message["result"] == call.result,
         "a finished call's response carries its request's id and the backend's result");
  entry.claimed = true;
  call.answered = true;
}

void Oracle::on_cancel(uint64_t id) {
  trace("backend: cancel", "", id);
  CallState& call = call_of(id);
  expect(!call.done, "the backend is never told to cancel a call it finished");
  expect(!call.cancelled, "a call is cancelled once");
  if (phase_ == Phase::kServing) {
    expect(in_line_ && line_.kind == Expected::Kind::kNotification &&
               line_.method == "notifications/cancelled" && cancelled_in_line_ == 0,
           "while serving, only notifications/cancelled cancels, one call");
    cancelled_in_line_ = id;
  } else {
    expect((phase_ == Phase::kClosing || phase_ == Phase::kDestroying) &&
               std::count(ending_.begin(), ending_.end(), id) == 1,
           "the close cancels the running calls only");
  }
  call.cancelled = true;
}

void Oracle::begin_close() {
  trace("harness:", "close");
  expect(phase_ == Phase::kServing, "closed once");
  phase_ = Phase::kClosing;
  ending_ = active_calls();
  ending_mark_ = log_.size();
}

void Oracle::end_close(int closed_callbacks) {
  for (uint64_t id : ending_) expect(call_of(id).cancelled, "a disconnect cancels running calls");
  expect(log_.size() == ending_mark_, "nothing is written after the close");
  expect(closed_callbacks == 1, "on_closed is called once");
  phase_ = Phase::kClosed;
}

void Oracle::begin_destroy() {
  trace("harness:", "destroy the server");
  expect(phase_ == Phase::kServing || phase_ == Phase::kClosed, "destroyed once");
  phase_ = Phase::kDestroying;
  ending_ = active_calls();
  ending_mark_ = log_.size();
}

void Oracle::end_destroy() {
  std::vector<std::string> ids;
  for (uint64_t id : ending_) {
    expect(call_of(id).cancelled, "the server's end cancels running calls");
    ids.push_back(call_of(id).request_id.dump());
  }
  std::vector<Written*> fresh = unclaimed_since(ending_mark_);
  expect(fresh.size() == ending_.size(), "the server's end answers each running call once");
  for (Written* entry : fresh) {
    auto it = std::find(ids.begin(), ids.end(), entry->message["id"].dump());
    expect(it != ids.end() && error_code(entry->message) == kInternalError,
           "the server's end answers a running call with an internal error");
    ids.erase(it);
    entry->claimed = true;
  }
  phase_ = Phase::kGone;
}

void Oracle::finish() {
  expect(phase_ == Phase::kGone, "the harness ends the server");
  expect(next_line_ == lines_.size(), "every input line was delivered");
  for (const CallState& call : calls_) {
    expect(call.answered != call.cancelled, "every call ends answered or cancelled");
  }
  for (const Written& entry : log_) expect(entry.claimed, "every response answers something");
}

Oracle::CallState& Oracle::call_of(uint64_t id) {
  for (CallState& call : calls_) {
    if (call.id == id) return call;
  }
  expect(false, "the backend names a call the server started");
  __builtin_unreachable();
}

std::vector<Oracle::Written*> Oracle::unclaimed_since(size_t mark) {
  std::vector<Written*> fresh;
  for (size_t i = mark; i < log_.size(); ++i) {
    if (!log_[i].claimed) fresh.push_back(&log_[i]);
  }
  return fresh;
}

std::vector<uint64_t> Oracle::active_calls() const {
  std::vector<uint64_t> active;
  for (const CallState& call : calls_) {
    if (call.active()) active.push_back(call.id);
  }
  return active;
}

}  // namespace toolhost::mcp_fuzz
