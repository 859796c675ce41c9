#pragma once
// Server-Sent Events (the WHATWG event-stream format) cut into events, as MCP's Streamable HTTP
// carries its messages: `data:` lines joined by "\n", `event:`, `id:` and `retry:`, comments and
// unknown fields ignored, lines ended by CRLF, LF or CR (even split across reads). An event
// whose data grows past the cap is dropped as it arrives, never buffered whole, and reported
// once. Pure: no I/O.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "jsonrpc/line_splitter.h"

namespace toolhost::jsonrpc {

struct SseEvent {
  std::string type;  // "" when the event named none (a "message")
  std::string data;
  std::string id;  // the stream's last event id when the event was dispatched
};

class SseParser {
 public:
  using OnEvent = std::function<void(const SseEvent& event)>;
  using OnOversized = std::function<void(size_t cap)>;

  SseParser(OnEvent on_event, OnOversized on_oversized, size_t cap = kMaxMessageBytes)
      : on_event_(std::move(on_event)), on_oversized_(std::move(on_oversized)), cap_(cap) {}

  void feed(std::string_view bytes);

  // What a reconnection sends as Last-Event-ID: set by `id:` fields of dispatched events and
  // kept across events ("" when the server never named one, or reset it).
  const std::string& last_event_id() const { return last_event_id_; }
  // The server's `retry:` (milliseconds to wait before reconnecting), when it sent one.
  std::optional<uint64_t> retry_ms() const { return retry_ms_; }
  // Bytes held for an unfinished line and event (bounded by about twice the cap).
  size_t buffered() const { return line_.size() + data_.size(); }

 private:
  void feed_lines(std::string_view bytes);
  void line(std::string_view text);
  void field(std::string_view name, std::string_view value);
  void dispatch();

  OnEvent on_event_;
  OnOversized on_oversized_;
  size_t cap_;
  std::string line_;
  bool after_cr_ = false;       // the last byte was a CR: an LF next ends nothing new
  bool skipping_line_ = false;  // the current line passed the cap
  bool started_ = false;        // past the optional BOM
  size_t bom_seen_ = 0;
  std::string data_;
  std::string type_;
  bool oversized_ = false;  // the current event passed the cap: it is dropped
  std::string id_buffer_;
  std::string last_event_id_;
  std::optional<uint64_t> retry_ms_;
};

}  // namespace toolhost::jsonrpc
