#include "line_transport.h"

#include <algorithm>

namespace toolhost::mcp_fuzz {

LineTransport::LineTransport(Observer& observer, size_t cap)
    : observer_(observer),
      splitter_([this](std::string_view line) { deliver(line); },
                [this](size_t limit) { dropped(limit); }, cap) {}

bool LineTransport::start(Handlers handlers, std::string&) {
  handlers_ = std::move(handlers);
  return true;
}

void LineTransport::send(std::string text) {
  if (open_) {
    observer_.written(text);
  } else {
    observer_.written_after_close(text);
  }
}

void LineTransport::close(const std::string& reason) {
  if (!open_) return;
  open_ = false;
  auto closed = std::move(handlers_.closed);
  handlers_ = Handlers{};
  if (closed) closed(reason);
}

void LineTransport::deliver(std::string_view line) {
  if (!open_ || !handlers_.message) return;
  observer_.begin_line(line);
  auto message = handlers_.message;
  message(line);
  observer_.end_line();
}

void LineTransport::dropped(size_t cap) {
  if (!open_ || !handlers_.dropped) return;
  observer_.begin_dropped();
  auto report = handlers_.dropped;
  report("a message over " + std::to_string(cap) + " bytes was dropped");
  observer_.end_line();
}

void LineTransport::feed_in_reads(uv_loop_t* loop, std::string_view bytes, uint32_t& split) {
  size_t at = 0;
  while (at < bytes.size()) {
    size_t n = bytes.size() - at;
    if (split != 0) {
      split = split * 1103515245u + 12345u;
      n = std::min<size_t>(n, 1 + (split >> 16) % 64);
    }
    feed(bytes.substr(at, n));
    at += n;
    uv_run(loop, UV_RUN_NOWAIT);
  }
}

}  // namespace toolhost::mcp_fuzz
