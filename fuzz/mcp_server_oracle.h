#pragma once
// What mcp_server_fuzz expects of mcp::Server, written apart from it: the input's lines and
// what each must get (from the JSON-RPC 2.0 and MCP rules, not from jsonrpc::parse_message),
// every call the backend runs, and every line the server writes. The fake transport and backend
// report to it as things happen; each report checks what it can at once, so a failure traps
// with the stack that broke the rule.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "line_transport.h"
#include "mcp/server.h"

namespace toolhost::mcp_fuzz {

using Json = nlohmann::json;

// Traps, naming the rule, when `ok` is false (the name shows which oracle a crash broke).
void expect(bool ok, const char* rule);

// MCP_FUZZ_TRACE=1 prints the conversation and the backend's events (to explain a crash).
void trace(const char* what, std::string_view text, uint64_t call = 0);

// The text as it reads after JSON encoding with invalid UTF-8 replaced.
std::string cleaned(const std::string& text);

// What one input line must get, from JSON-RPC 2.0 alone (mcp_server_expected.cc).
struct Expected {
  enum class Kind {
    kParseError,    // not JSON, too deep, or over the transport's cap: -32700, id null
    kInvalid,       // JSON but not a message: -32600 with `id`
    kRequest,       // exactly one response with `id` (later, or never when cancelled)
    kNotification,  // no response
    kResponse,      // a response from the agent: dropped, no response
  };
  Kind kind = Kind::kParseError;
  Json id;
  std::string method;
  Json params;
};

Expected expect_of(std::string_view line);

// The lines a newline splitter with `cap` must deliver, in order; "" stands for a line over the
// cap (reported as dropped, never delivered).
std::vector<std::string> lines_of(std::string_view input, size_t cap);

class Oracle : public LineTransport::Observer {
 public:
  Oracle(std::string_view input, size_t cap, std::vector<std::string> tool_names);

  // From the transport.
  void begin_line(std::string_view line) override;
  void begin_dropped() override;
  void end_line() override;
  void written(const std::string& text) override;

  // From the backend: each hook before the sink is called returns a mark for the one after.
  void on_start(const mcp::ToolBackend::Call& call);
  size_t on_output(uint64_t call, const std::string& text);
  void after_output(uint64_t call, size_t mark);
  size_t on_done(uint64_t call, const mcp::CallResult& result);
  void after_done(uint64_t call, size_t mark);
  void on_cancel(uint64_t call);

  // From the harness, at the end of the input.
  void begin_close();
  void end_close(int closed_callbacks);
  void begin_destroy();
  void end_destroy();
  void finish();

 private:
  enum class Phase { kServing, kClosing, kClosed, kDestroying, kGone };
  struct Written {
    Json message;
    bool claimed = false;
  };
  struct CallState {
    uint64_t id = 0;
    Json request_id;
    Json token;  // null: the agent asked for no progress
    bool done = false;
    bool answered = false;
    bool cancelled = false;
    std::string last_output;  // cleaned
    bool unsent = false;      // output since the last progress notification
    uint64_t notifications = 0;
    Json result;  // what done() should answer
    bool active() const { return !answered && !cancelled; }
  };

  CallState& call_of(uint64_t id);
  void progress(Written& entry);
  std::vector<Written*> unclaimed_since(size_t mark);
  void check_request_answer(const Json& response);
  void check_cancel_line();
  std::vector<uint64_t> active_calls() const;

  std::vector<std::string> lines_;
  size_t next_line_ = 0;
  std::vector<std::string> tool_names_;
  Phase phase_ = Phase::kServing;
  bool initialized_ = false;
  std::string client_ = "agent";
  std::vector<Written> log_;
  std::vector<CallState> calls_;  // in start order; ids are 1, 2, … but not relied on
  // The line being delivered.
  bool in_line_ = false;
  Expected line_;
  size_t line_mark_ = 0;
  uint64_t started_in_line_ = 0;
  uint64_t cancelled_in_line_ = 0;
  std::vector<uint64_t> active_at_line_;
  uint64_t output_call_ = 0;      // the call whose output() is running, preferred by progress()
  bool output_is_first_ = false;  // and it had no progress notification before
  std::vector<uint64_t> ending_;  // the calls active when the close or destroy began
  size_t ending_mark_ = 0;
};

}  // namespace toolhost::mcp_fuzz
