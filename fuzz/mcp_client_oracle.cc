#include "mcp_client_oracle.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "jsonrpc/message.h"

namespace toolhost::mcp_client_fuzz {
namespace {

void trace(const char* what, std::string_view text) {
  static const bool on = std::getenv("MCP_FUZZ_TRACE") != nullptr;
  if (!on) return;
  std::fprintf(stderr, "%s %.*s\n", what, static_cast<int>(std::min<size_t>(text.size(), 300)),
               text.data());
}

// JSON as the protocol allows it: nesting up to jsonrpc::kMaxDepth (deeper is a parse error).
bool parse(std::string_view text, Json& value) {
  struct TooDeep {};
  try {
    value = Json::parse(text, [](int depth, Json::parse_event_t, Json&) {
      if (depth > jsonrpc::kMaxDepth) throw TooDeep{};
      return true;
    });
    return true;
  } catch (const TooDeep&) {
    return false;
  } catch (const Json::exception&) {
    return false;
  }
}

// A response JSON-RPC 2.0 says must be matched to its request: jsonrpc "2.0", an integer id,
// no method, exactly one of result and error, an error an object with an integer code.
bool is_response(const Json& m) {
  if (!m.is_object() || m.contains("method") || m.value("jsonrpc", Json()) != "2.0") return false;
  if (!m.contains("id") || !m["id"].is_number_integer()) return false;
  if (m.contains("result") == m.contains("error")) return false;
  if (m.contains("error")) {
    const Json& error = m["error"];
    return error.is_object() && error.contains("code") && error["code"].is_number_integer();
  }
  return true;
}

}  // namespace

void expect(bool ok, const char* rule) {
  if (ok) return;
  std::fprintf(stderr, "mcp_client_fuzz: broken: %s\n", rule);
  __builtin_trap();
}

void Oracle::begin_line(std::string_view line) {
  trace("server>", line);
  expect(!closed_, "nothing is delivered after the close");
  in_line_ = true;
  progress_token_ = nullptr;
  Json m;
  if (!parse(line, m) || !m.is_object()) return;
  if (m.value("jsonrpc", Json()) == "2.0" && m.value("method", Json()) == "notifications/progress" &&
      !m.contains("id") && m["params"].is_object()) {
    progress_token_ = m["params"].value("progressToken", Json());
  }
  if (!is_response(m) || !m["id"].is_number_integer()) return;
  auto it = m["id"].is_number_unsigned() && m["id"].get<uint64_t>() > INT64_MAX
                ? requests_.end()
                : requests_.find(m["id"].get<int64_t>());
  if (it == requests_.end() || it->second.answered || it->second.cancelled) return;
  it->second.answered = true;
  if (it->second.method == "tools/list" && m.contains("result") &&
      m["result"].is_object() && m["result"].value("tools", Json()).is_array()) {
    tools_listed_ += m["result"]["tools"].size();
  }
}

void Oracle::begin_dropped() {
  expect(!closed_, "nothing is delivered after the close");
  in_line_ = true;
  progress_token_ = nullptr;
}

void Oracle::end_line() {
  in_line_ = false;
  progress_token_ = nullptr;
}

void Oracle::written(const std::string& text) {
  trace("client>", text);
  expect(!closed_, "nothing is written after the close");
  expect(text.find('\n') == std::string::npos, "a written message holds no newline");
  Json m;
  expect(parse(text, m), "the client writes JSON");
  expect(m.is_object() && m.value("jsonrpc", Json()) == "2.0", "an object with jsonrpc 2.0");
  if (!m.contains("method")) {
    // Its answer to a request of ours (ping, an unknown method, a bad line).
    expect(m.contains("id") && (m.contains("result") != m.contains("error")),
           "a response has an id and exactly one of result and error");
    return;
  }
  expect(m["method"].is_string(), "a method is a string");
  const std::string method = m["method"].get<std::string>();
  if (m.contains("id")) {
    expect(m["id"].is_number_integer(), "the client's request ids are integers");
    const int64_t id = m["id"].get<int64_t>();
    expect(requests_.count(id) == 0, "every request has an id of its own");
    requests_[id] = Request{method};
    request_order_.push_back(id);
    if (method == "tools/list") {
      ++tools_list_requests_;
      expect(tools_list_requests_ <= max_pages_ * lists_.size(),
             "tools/list stops at the page cap");
    }
    if (method == "tools/call") {
      expect(!calls_.empty() && calls_.back().number == 0 && calls_.back().done == 0,
             "tools/call only while call_tool() starts a call");
      const Json token = m["params"]["_meta"].value("progressToken", Json());
      expect(token.is_number_unsigned(), "a call asks for progress with a number");
      calls_.back().number = token.get<uint64_t>();
    }
    return;
  }
  if (method == "notifications/cancelled") {
    const Json id = m["params"].value("requestId", Json());
    expect(id.is_number_integer(), "notifications/cancelled names a request id");
    auto it = requests_.find(id.get<int64_t>());
    expect(it != requests_.end(), "notifications/cancelled names a request the client sent");
    expect(!it->second.answered, "notifications/cancelled names a request not yet answered");
    expect(!it->second.cancelled, "a request is cancelled once");
    expect(it->second.method == "tools/call", "only calls are cancelled");
    it->second.cancelled = true;
  }
}

void Oracle::written_after_close(const std::string& text) {
  trace("client (closed)>", text);
  expect(false, "nothing is written after the close");
}

size_t Oracle::connect_started() {
  connects_.push_back(0);
  return connects_.size() - 1;
}

void Oracle::connected(size_t slot, bool ok, bool client_says_connected) {
  expect(++connects_[slot] == 1, "connect() calls back once");
  if (ok) expect(client_says_connected, "a connect that succeeded leaves the client connected");
}

size_t Oracle::list_started() {
  lists_.push_back(0);
  return lists_.size() - 1;
}

void Oracle::listed(size_t slot, const mcp::ToolList& list) {
  expect(++lists_[slot] == 1, "list_tools() calls back once");
  if (list.error) {
    expect(list.tools.empty(), "a refused tool list holds no tools (never half a list)");
    return;
  }
  std::set<std::string> names;
  for (const mcp::Tool& tool : list.tools) {
    expect(names.insert(tool.name).second, "a tool list names each tool once");
  }
  expect(list.tools.size() <= tools_listed_, "a tool list holds only tools the server listed");
}

size_t Oracle::call_started() {
  calls_.push_back(Call{});
  return calls_.size() - 1;
}

void Oracle::call_numbered(size_t slot, uint64_t number) {
  Call& call = calls_[slot];
  // number 0: never written (not connected, or the connection is closed).
  expect(call.number == 0 || call.number == number, "the progress token is the call's number");
  call.number = number;
}

void Oracle::call_progress(size_t slot) {
  const Call& call = calls_[slot];
  expect(call.done == 0, "no progress after the call completed");
  expect(in_line_ && progress_token_.is_number_integer() && call.number != 0 &&
             progress_token_ == Json(call.number),
         "progress only for the call whose token the notification names");
}

void Oracle::call_done(size_t slot, const mcp::CallOutcome& outcome) {
  Call& call = calls_[slot];
  expect(++call.done == 1, "every call completes exactly once");
  expect(!call.canceled, "a canceled call completes no more");
  if (outcome.status == mcp::CallOutcome::Status::kCanceled) {
    expect(call.cancelling, "a call ends canceled only inside cancel()");
  }
}

void Oracle::begin_cancel(size_t slot) {
  calls_[slot].cancelling = true;
}

void Oracle::end_cancel(size_t slot, bool canceled) {
  Call& call = calls_[slot];
  call.cancelling = false;
  if (canceled) {
    expect(call.done == 1, "cancel() ends the call at once");
    call.canceled = true;
  } else {
    expect(call.done == 1, "cancel() refuses only a call that has ended");
  }
}

void Oracle::closed_event() {
  expect(++closed_events_ == 1, "the closed event comes once");
}

void Oracle::closing() {
  closed_ = true;
}

void Oracle::finish() {
  for (int done : connects_) expect(done == 1, "every connect() ends once");
  for (int done : lists_) expect(done == 1, "every list_tools() ends once");
  for (const Call& call : calls_) expect(call.done == 1, "every call completes exactly once");
}

Json Oracle::request_id(size_t back) const {
  if (back >= request_order_.size()) return nullptr;
  return request_order_[request_order_.size() - 1 - back];
}

uint64_t Oracle::call_number(size_t back) const {
  size_t seen = 0;
  for (auto it = calls_.rbegin(); it != calls_.rend(); ++it) {
    if (it->number == 0) continue;
    if (seen++ == back) return it->number;
  }
  return 0;
}

}  // namespace toolhost::mcp_client_fuzz
