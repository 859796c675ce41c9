#pragma once
// Cuts a byte stream into newline-delimited messages (MCP's stdio framing). A message longer
// than the cap is dropped as it arrives, never buffered whole: a peer that writes a 100 MB line
// costs at most the cap in memory, and is told once per line.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace toolhost::jsonrpc {

// Generous for images in tool results, small enough that a hostile line cannot exhaust memory.
constexpr size_t kMaxMessageBytes = 64 * 1024 * 1024;

class LineSplitter {
 public:
  using OnLine = std::function<void(std::string_view line)>;
  // Called once for each line that exceeded the cap, with the cap.
  using OnOversized = std::function<void(size_t cap)>;

  LineSplitter(OnLine on_line, OnOversized on_oversized, size_t cap = kMaxMessageBytes)
      : on_line_(std::move(on_line)), on_oversized_(std::move(on_oversized)), cap_(cap) {}

  // Empty lines (and a lone "\r") carry no message and are skipped; a trailing "\r" is cut.
  void feed(std::string_view bytes);
  size_t buffered() const { return partial_.size(); }
  // What was fed after the last complete line, handed to whoever reads the stream next.
  std::string take_partial() { return std::exchange(partial_, std::string()); }

 private:
  void finish_line(std::string_view line);

  OnLine on_line_;
  OnOversized on_oversized_;
  size_t cap_;
  std::string partial_;
  bool skipping_ = false;  // inside a line already reported as oversized
};

}  // namespace toolhost::jsonrpc
