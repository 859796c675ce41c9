// Fuzzes the MCP client's message handling: mcp::Client on its jsonrpc::Endpoint, fed through the
// in-memory LineTransport, the input playing the server, on a libuv loop of its own per input.
// Byte 0: how each server line is cut into reads (0: one read; else reads of 1..64 bytes, one
// loop turn after each); byte 1: the client's options (bit 0: discover_first; bit 1: calls time
// out after 2 ms; bit 2: initialize, discover and each tools/list page after 2 ms; bits 3-4:
// max_pages 1..4; bits 5-6: the ending, 0 the server's EOF, 1 Client::close(), 2 the client
// destroyed with the connection open; bit 7: a call's first progress cancels it). The rest is
// one line each: the server's lines, where `$ID` stands for the id of the latest request the
// client wrote (`$ID1` the one before) and `$TOK` for the latest call's progress token (`$TOK1`),
// or the harness's actions: !connect, !list, !call NAME, !cancel [K] (the K-th latest call),
// !turn (a loop turn), !wait (3 ms of loop turns, for the short timeouts), !close, !eof,
// !huge (a line over the transport's cap), !deep (nesting past the limit), !dup (the last server
// line again). Checked, besides not crashing (mcp_client_oracle.h, each rule named when broken):
//   - every call completes exactly once (result, error, canceled or timed out), at once when
//     cancel() says it canceled it, never after; progress only for the call whose token the
//     notification names, before it completes; connect() and list_tools() call back once;
//   - a tool list is either whole (each tool once, all from the server's answers) or an error
//     with no tools; tools/list requests stop at the page cap;
//   - every written line is one JSON-RPC 2.0 object without a newline; requests have ids of
//     their own; notifications/cancelled names a call sent, not answered, once;
//   - nothing is written after the close, the closed event comes once, and every libuv handle is
//     closed at the end (uv_loop_close succeeds; ASan finds no leak).
#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "line_transport.h"
#include "mcp/client.h"
#include "mcp_client_oracle.h"

namespace {

using namespace toolhost;
using mcp_client_fuzz::expect;
using mcp_client_fuzz::Json;

// Small, so that fuzzed inputs reach the transport's drop of an oversized line.
constexpr size_t kLineCap = 2048;
constexpr uint64_t kShortMs = 2;
constexpr uint64_t kLongMs = 60'000;
constexpr int kMaxWaits = 8;  // keeps an input under ~30 ms of waiting

std::string replaced(std::string line, const std::string& from, const std::string& to) {
  for (size_t at = line.find(from); at != std::string::npos; at = line.find(from, at + to.size())) {
    line.replace(at, from.size(), to);
  }
  return line;
}

class Session {
 public:
  Session(uv_loop_t* loop, uint8_t split, uint8_t options)
      : loop_(loop), split_(split), cancel_on_progress_(options & 0x80), oracle_(pages(options)) {
    mcp::Client::Options client_options;
    client_options.version = "fuzz";
    client_options.discover_first = options & 1;
    client_options.call_timeout_ms = options & 2 ? kShortMs : kLongMs;
    client_options.startup_timeout_ms = options & 4 ? kShortMs : kLongMs;
    client_options.request_timeout_ms = client_options.startup_timeout_ms;
    client_options.max_pages = pages(options);
    auto transport = std::make_unique<mcp_fuzz::LineTransport>(oracle_, kLineCap);
    wire_ = transport.get();  // owned by the client's endpoint
    mcp::Client::Events events;
    events.tools_changed = [] {};
    events.log = [](const std::string&, const std::string&) {};
    events.closed = [this](const std::string&) { oracle_.closed_event(); };
    client_ = std::make_unique<mcp::Client>(loop_, std::move(transport), client_options, events);
    std::string error;
    expect(client_->start(error), "the client starts");
  }

  void line(std::string_view text, bool newline) {
    std::string out(text);
    if (out.find('$') != std::string::npos) {
      out = replaced(out, "$ID1", oracle_.request_id(1).dump());
      out = replaced(out, "$ID", oracle_.request_id(0).dump());
      out = replaced(out, "$TOK1", std::to_string(oracle_.call_number(1)));
      out = replaced(out, "$TOK", std::to_string(oracle_.call_number(0)));
    }
    if (newline) out += '\n';
    last_ = out;
    feed(out);
  }

  void action(std::string_view text) {
    if (text == "!connect") {
      size_t slot = oracle_.connect_started();
      client_->connect([this, slot](std::optional<std::string> error) {
        oracle_.connected(slot, !error, client_ && client_->connected());
      });
    } else if (text == "!list") {
      size_t slot = oracle_.list_started();
      client_->list_tools([this, slot](mcp::ToolList list) { oracle_.listed(slot, list); });
    } else if (text.rfind("!call", 0) == 0) {
      call(std::string(text.size() > 6 ? text.substr(6) : "echo"));
    } else if (text.rfind("!cancel", 0) == 0) {
      size_t back = text.size() > 8 ? static_cast<size_t>(text[8] - '0') % 10 : 0;
      if (back < oracle_.calls()) cancel(oracle_.calls() - 1 - back);
    } else if (text == "!turn") {
      uv_run(loop_, UV_RUN_NOWAIT);
    } else if (text == "!wait") {
      if (waits_++ >= kMaxWaits) return;
      uv_update_time(loop_);
      for (uint64_t until = uv_now(loop_) + 3; uv_now(loop_) < until;) {
        uv_run(loop_, UV_RUN_NOWAIT);
        uv_update_time(loop_);
      }
    } else if (text == "!close") {
      client_->close("the fuzzer closes");
      oracle_.closing();
    } else if (text == "!eof") {
      wire_->close("end of the server's output");
      oracle_.closing();
    } else if (text == "!huge") {
      feed(std::string(kLineCap + 100, 'x') + "\n");
    } else if (text == "!deep") {
      feed("{\"jsonrpc\":\"2.0\",\"id\":" + oracle_.request_id().dump() +
           ",\"result\":" + std::string(200, '[') + std::string(200, ']') + "}\n");
    } else if (text == "!dup") {
      feed(last_);
    }
  }

  void end(uint8_t ending) {
    if (ending == 0) {
      wire_->close("end of the server's output");
    } else if (ending == 1) {
      client_->close("the fuzzer closes");
    }
    oracle_.closing();
    if (ending <= 1) expect(client_->running_calls() == 0, "no call runs after the close");
    client_.reset();
    oracle_.finish();
  }

 private:
  static size_t pages(uint8_t options) { return 1 + ((options >> 3) & 3); }

  void feed(std::string_view bytes) { wire_->feed_in_reads(loop_, bytes, split_); }

  void call(const std::string& name) {
    size_t slot = oracle_.call_started();
    mcp::Client::CallEvents events;
    events.progress = [this, slot](const mcp::Progress&) {
      oracle_.call_progress(slot);
      if (cancel_on_progress_) cancel(slot);
    };
    events.log = [](const std::string&, const std::string&) {};
    events.done = [this, slot](mcp::CallOutcome outcome) { oracle_.call_done(slot, outcome); };
    uint64_t number = client_->call_tool(name, Json{{"text", "hi"}}, std::move(events));
    oracle_.call_numbered(slot, number);
  }

  void cancel(size_t slot) {
    oracle_.begin_cancel(slot);
    bool canceled = client_->cancel(oracle_.call_number_of(slot), "the fuzzer cancels");
    oracle_.end_cancel(slot, canceled);
  }

  uv_loop_t* loop_;
  uint32_t split_;
  bool cancel_on_progress_;
  mcp_client_fuzz::Oracle oracle_;
  mcp_fuzz::LineTransport* wire_;
  std::unique_ptr<mcp::Client> client_;
  std::string last_;
  int waits_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  uv_loop_t loop;
  expect(uv_loop_init(&loop) == 0, "a loop per input");
  {
    Session session(&loop, data[0], data[1]);
    size_t at = 0;
    while (at < input.size()) {
      size_t end = input.find('\n', at);
      const bool newline = end != std::string_view::npos;
      std::string_view text = input.substr(at, (newline ? end : input.size()) - at);
      at = newline ? end + 1 : input.size();
      if (!text.empty() && text[0] == '!') {
        session.action(text);
      } else {
        session.line(text, newline);
      }
    }
    session.end((data[1] >> 5) & 3);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  expect(uv_loop_close(&loop) == 0, "every libuv handle is closed");
  return 0;
}
