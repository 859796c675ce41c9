#pragma once
// mcp_server_fuzz's scripted backend (and its transport, LineTransport). Both report to the Oracle
// around everything they hand to the server, so that it can tell what each written line answers.

#include <uv.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "line_transport.h"
#include "mcp/server.h"
#include "mcp_server_oracle.h"

namespace toolhost::mcp_fuzz {

// The transport is the shared LineTransport, the Oracle its observer.
using FakeTransport = LineTransport;

// A few tools with typed, required and closed parameters. How each call behaves (at once or on
// later loop turns, how much output, an error, hanging until cancelled, ignoring a cancel, bytes
// that are not UTF-8) comes from the input's seed byte and the call's number; `count` takes its
// output count from its argument, and with `slow_waits` the first `slow` call of a run finishes
// on a real timer past the progress interval, so that throttled progress is flushed (at the
// cost of a quarter second: the inputs choose it with a header bit, not by mutating a name).
class FakeBackend : public mcp::ToolBackend {
 public:
  FakeBackend(uv_loop_t* loop, Oracle& oracle, uint8_t seed, bool slow_waits);
  FakeBackend(const FakeBackend&) = delete;
  FakeBackend& operator=(const FakeBackend&) = delete;

  static std::vector<mcp::Tool> tool_list();
  static std::vector<std::string> tool_names();

  std::vector<mcp::Tool> tools() override { return tool_list(); }
  void start(Call call, Sink sink) override;
  void cancel(uint64_t id, const std::string& reason) override;

  // Output or a done() is still to come (sinks are called even after the server is gone).
  bool busy() const { return !events_.empty() || slow_call_ != 0; }
  // Closes the loop handles; run the loop afterwards so that they finish closing.
  void close();

 private:
  struct Event {
    uint64_t call = 0;
    bool done = false;
    std::string text;
    bool is_error = false;
  };
  struct Plan {
    bool ignores_cancel = false;
    bool hangs = false;  // no done() until cancelled
    bool is_error = false;
    std::string result;
  };

  void schedule(uint64_t due, Event event);
  void run(const Event& event);
  void turn();
  void slow_done();

  uv_loop_t* loop_;
  Oracle& oracle_;
  uint8_t seed_;
  uint64_t turn_ = 0;
  std::multimap<uint64_t, Event> events_;  // by the loop turn they are due on
  std::map<uint64_t, Sink> sinks_;
  std::map<uint64_t, Plan> plans_;
  uint64_t slow_call_ = 0;  // the call the slow timer finishes
  bool slow_used_;          // or not allowed
  std::unique_ptr<uv_idle_t> idle_;
  std::unique_ptr<uv_timer_t> slow_timer_;
};

}  // namespace toolhost::mcp_fuzz
