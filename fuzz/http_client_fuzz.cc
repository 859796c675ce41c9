// Fuzzes the HTTP client's response handling: jsonrpc::HttpExchange (the status line and
// headers, then the body as one JSON message or as SSE events through the SseParser) without
// libcurl, its messages dispatched to an mcp::Client that is waiting on initialize, as the
// HttpTransport delivers them after each read.
// Byte 0: how the body is cut into reads (0: one read; else reads of 1..64 bytes); byte 1: bit
// 0: the cap is 256 bytes (else 2048); bits 1-2: what the request was (0 a request's POST, 1 a
// notification's, 2 a resumption by GET, 3 the listening GET). The rest: header lines up to an
// empty line (the status line first, as "HTTP/1.1 200 OK"), then the body.
// Checked, besides not crashing:
//   - every message handed on is non-empty, trimmed, and at most the cap; a JSON body that
//     passed the cap stops the reading and is never handed on;
//   - "answered" means a response to the request's id was handed on;
//   - the session kept is visible ASCII only (it goes back out as a header line);
//   - what a failure says is one printable line of bounded length;
//   - the client's connect() calls back at most once, and every libuv handle is closed at the end.
#include <uv.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jsonrpc/curl_api.h"
#include "jsonrpc/http_exchange.h"
#include "mcp/client.h"

namespace {

using namespace toolhost;
using jsonrpc::HttpExchange;
using jsonrpc::Json;

void expect(bool ok, const char* rule) {
  if (ok) return;
  std::fprintf(stderr, "http_client_fuzz: broken: %s\n", rule);
  std::abort();
}

bool printable_line(const std::string& text) {
  if (text.size() > 4096) return false;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

// What the HttpTransport would be to the client: messages in, the client's messages out.
class MemoryTransport : public jsonrpc::Transport {
 public:
  bool start(Handlers handlers, std::string&) override {
    handlers_ = std::move(handlers);
    return true;
  }
  void send(std::string text) override {
    if (open_) expect(Json::parse(text, nullptr, false).is_object(), "the client writes JSON");
  }
  void close(const std::string& reason) override {
    if (!open_) return;
    open_ = false;
    auto closed = std::move(handlers_.closed);
    handlers_ = Handlers{};
    if (closed) closed(reason);
  }
  bool is_open() const override { return open_; }
  void deliver(const std::string& text) {
    if (auto message = handlers_.message; open_ && message) message(text);
  }
  void dropped(const std::string& reason) {
    if (auto report = handlers_.dropped; open_ && report) report(reason);
  }

 private:
  Handlers handlers_;
  bool open_ = true;
};

}  // namespace

// describe_failure() asks libcurl's table for an error's text: filled once here (the jsonrpc
// layer loads libcurl with dlopen() where the plugin's build does).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::string error;
  if (!toolhost::jsonrpc::load_curl(error)) {
    std::fprintf(stderr, "http_client_fuzz: %s\n", error.c_str());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  size_t split = data[0] == 0 ? 0 : 1 + data[0] % 64;
  uint8_t options = data[1];
  std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);

  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    auto transport = std::make_unique<MemoryTransport>();
    MemoryTransport* wire = transport.get();
    mcp::Client::Options client_options;
    client_options.version = "fuzz";
    client_options.startup_timeout_ms = 60'000;
    int connected = 0;  // outlives the client, whose destruction may still call back
    mcp::Client client(&loop, std::move(transport), client_options, {});
    std::string error;
    expect(client.start(error), "the client starts");
    client.connect([&](std::optional<std::string>) { ++connected; });  // initialize is id 1

    HttpExchange::Request request;
    request.kind = static_cast<HttpExchange::Kind>((options >> 1) & 3);
    request.session_header = "Mcp-Session-Id";
    request.cap = options & 1 ? 256 : 2048;
    bool answers =
        request.kind == HttpExchange::Kind::kPost || request.kind == HttpExchange::Kind::kResume;
    size_t cap = request.cap;
    HttpExchange exchange(request, answers ? Json(1) : Json());
    std::vector<std::string> pending;
    bool answer_seen = false;
    exchange.on_message = [&](std::string text) {
      expect(!text.empty() && text.size() <= cap, "a message is non-empty and within the cap");
      auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
      expect(!space(text.front()) && !space(text.back()), "a message is trimmed");
      auto json = Json::parse(text, nullptr, false);
      if (json.is_object() && !json.contains("method") && json.contains("id") && json["id"] == 1)
        answer_seen = true;
      pending.push_back(std::move(text));
    };
    exchange.on_oversized = [&](size_t limit) {
      pending.push_back("\x01a message over " + std::to_string(limit) + " bytes was dropped");
    };
    auto flush = [&] {  // as the transport does after libcurl returns
      for (std::string& text : pending) {
        if (text[0] == '\x01') {
          wire->dropped(text.substr(1));
        } else {
          wire->deliver(text);
        }
      }
      pending.clear();
      uv_run(&loop, UV_RUN_NOWAIT);
    };

    size_t end = input.find("\n\n");
    size_t separator = 2;
    if (size_t crlf = input.find("\r\n\r\n"); crlf < end) {
      end = crlf;
      separator = 4;
    }
    std::string_view headers = input.substr(0, end);
    std::string_view body = end == std::string_view::npos ? "" : input.substr(end + separator);
    for (size_t at = 0; at < headers.size();) {
      size_t eol = headers.find('\n', at);
      if (eol == std::string_view::npos) eol = headers.size();
      exchange.header(headers.substr(at, eol - at));
      at = eol + 1;
    }
    bool reading = true;
    while (reading && !body.empty()) {
      size_t take = split == 0 ? body.size() : std::min(split, body.size());
      reading = exchange.body(body.substr(0, take));
      body.remove_prefix(take);
      flush();
    }
    if (exchange.mode == HttpExchange::Mode::kUnknown) exchange.body("");
    if (exchange.oversized) {
      expect(!reading, "a JSON body over the cap stops the reading");
      expect(exchange.buffer.empty(), "a JSON body over the cap is not kept");
    }
    if (exchange.mode == HttpExchange::Mode::kJson && !exchange.oversized) {
      expect(exchange.buffer.size() <= cap, "a JSON body is within the cap");
      exchange.deliver_body();
      flush();
    }
    if (exchange.sse) expect(exchange.sse->buffered() <= 2 * cap + 64, "an SSE stream is bounded");
    expect(!exchange.answered || answer_seen, "answered means the answer was handed on");
    for (char c : exchange.session) expect(c >= 0x21 && c <= 0x7e, "the session is visible ASCII");
    expect(printable_line(exchange.describe_status()), "the status is described on one line");
    expect(printable_line(exchange.describe_failure(CURLE_RECV_ERROR)),
           "a failure is described on one line");
    expect(connected <= 1, "connect() calls back at most once");
    client.close("the fuzzer closes");
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  for (int i = 0; i < 4 && uv_loop_alive(&loop); ++i) uv_run(&loop, UV_RUN_NOWAIT);
  expect(uv_loop_close(&loop) == 0, "every libuv handle is closed");
  return 0;
}
