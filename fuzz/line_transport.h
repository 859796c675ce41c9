#pragma once
// The MCP fuzzers' in-memory transport: newline framing over bytes the harness feeds, as
// StreamTransport frames a pipe (the same LineSplitter, with a small cap so that fuzzed inputs
// reach it). It reports to an observer around every line it delivers and every text written,
// so that an oracle can tell what each written line answers.

#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "jsonrpc/line_splitter.h"
#include "jsonrpc/transport.h"

namespace toolhost::mcp_fuzz {

class LineTransport : public jsonrpc::Transport {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    virtual void begin_line(std::string_view line) = 0;
    virtual void begin_dropped() = 0;
    virtual void end_line() = 0;
    virtual void written(const std::string& text) = 0;
    // A send() after the connection closed (the transport drops it).
    virtual void written_after_close(const std::string&) {}
  };

  LineTransport(Observer& observer, size_t cap);

  bool start(Handlers handlers, std::string& error) override;
  void send(std::string text) override;
  void close(const std::string& reason) override;
  bool is_open() const override { return open_; }

  // What a read from the other side would deliver.
  void feed(std::string_view bytes) { splitter_.feed(bytes); }
  // Feeds `bytes` in reads whose sizes come from `split` (0: one read), one loop turn after
  // each, as a pipe delivers a peer's writes; `split` is the generator's state and advances.
  void feed_in_reads(uv_loop_t* loop, std::string_view bytes, uint32_t& split);

 private:
  void deliver(std::string_view line);
  void dropped(size_t cap);

  Observer& observer_;
  Handlers handlers_;
  jsonrpc::LineSplitter splitter_;
  bool open_ = true;
};

}  // namespace toolhost::mcp_fuzz
