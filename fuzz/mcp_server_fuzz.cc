// Fuzzes the MCP server's message handling: mcp::Server on its jsonrpc::Endpoint, fed through an
// in-memory newline transport, with a scripted ToolBackend, on a libuv loop of its own per input.
// Byte 0: how the rest is cut into reads (0: one read; else reads of 1..64 bytes, one loop turn
// after each); byte 1: the backend's seed (each call at once or on later turns, its output,
// errors, hangs, ignored cancels); byte 2: how the session ends (bits 0-1: the agent's EOF,
// Server::close(), or the server destroyed with the connection open; bit 2: let the backend
// finish first; bit 3: the first `slow` call waits a quarter second, so that progress held back
// by the throttle is flushed by the server's timer). The rest is what the agent sends, one JSON-RPC
// message a line. Checked, besides not crashing (mcp_server_oracle.h holds the rules, each named
// when broken):
//   - every request gets exactly one response with its id, result xor error, unless a
//     notifications/cancelled named it before it finished (then none: MCP's receiver does not
//     answer); a notification or response gets none; a line that is not JSON (or is over the
//     cap) gets a parse error with id null, and the server goes on serving;
//   - before initialize only ping, initialize and server/discover are served;
//   - every written line is one JSON object with jsonrpc 2.0 and no newline;
//   - progress only for a running call that sent _meta.progressToken, rising, with its output;
//   - the backend is told to cancel only running calls, never one it finished; every call ends
//     answered or cancelled; done() after a cancel or after the server is gone sends nothing;
//   - every libuv handle is closed at the end (uv_loop_close succeeds; ASan finds no leak).
#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "mcp/server.h"
#include "mcp_server_fakes.h"
#include "mcp_server_oracle.h"

namespace {

using namespace toolhost;
using mcp_fuzz::expect;

// Small, so that fuzzed inputs reach the transport's drop of an oversized line.
constexpr size_t kLineCap = 2048;

enum Ending : uint8_t { kEndOfInput = 0, kServerClose = 1 };
constexpr uint8_t kDrainFirst = 4;
constexpr uint8_t kSlowWaits = 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  uint32_t split = data[0];
  const uint8_t seed = data[1];
  const uint8_t ending = data[2];
  const std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);

  uv_loop_t loop;
  expect(uv_loop_init(&loop) == 0, "a loop per input");
  mcp_fuzz::Oracle oracle(input, kLineCap, mcp_fuzz::FakeBackend::tool_names());
  {
    mcp_fuzz::FakeBackend backend(&loop, oracle, seed, ending & kSlowWaits);
    auto transport = std::make_unique<mcp_fuzz::FakeTransport>(oracle, kLineCap);
    mcp_fuzz::FakeTransport* wire = transport.get();  // owned by the server's endpoint
    auto server = std::make_unique<mcp::Server>(&loop, std::move(transport), backend,
                                                mcp::Server::Info{"toolhost", "fuzz", "hi"});
    int closed_callbacks = 0;
    server->on_closed([&closed_callbacks](const std::string&) { ++closed_callbacks; });
    std::string error;
    expect(server->start(error), "the server starts");

    wire->feed_in_reads(&loop, input, split);
    expect(wire->is_open(), "the server never closes the connection on its own");
    if (ending & kDrainFirst) {
      while (backend.busy()) uv_run(&loop, UV_RUN_ONCE);
    }

    if ((ending & 3) == kEndOfInput || (ending & 3) == kServerClose) {
      oracle.begin_close();
      if ((ending & 3) == kEndOfInput) {
        wire->close("end of input");
      } else {
        server->close("the host quits");
      }
      oracle.end_close(closed_callbacks);
      expect(server->running_calls() == 0, "no call runs after the close");
    }
    oracle.begin_destroy();
    server.reset();
    oracle.end_destroy();

    // The backend finishes what it still runs: the sinks outlive the server and do nothing.
    while (backend.busy()) uv_run(&loop, UV_RUN_ONCE);
    backend.close();
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  expect(uv_loop_close(&loop) == 0, "every libuv handle is closed");
  oracle.finish();
  return 0;
}
