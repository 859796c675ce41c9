#pragma once
// The last lines of a running job's output, as its block streams them (SPEC 5). Only bytes
// that can still show are kept, raw; they are cleaned when shown (at most every
// stream_interval_ms), never as they arrive: a flood costs a backward scan per read.

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "jobs/types.h"

namespace toolhost::results {

class OutputTail {
 public:
  // Raw bytes kept of one line: the cleaned line shows 500 code points at most.
  static constexpr size_t kLineBytes = 4096;

  // `width`: code points shown of a line (at most kMaxLineCodePoints; 0 means that).
  explicit OutputTail(size_t keep, size_t width = 0);

  void append(jobs::Stream stream, std::string_view data);
  // The last `keep` lines, cleaned: complete lines of both streams in arrival order, then
  // each stream's unfinished line (stdout's, then stderr's), so the two never mix.
  std::vector<std::string> lines() const;

 private:
  // One line as it builds up: a '\r' followed by more text starts it over, as a terminal
  // overwrites it, so no '\r' is ever kept.
  struct Line {
    std::string text;
    bool truncated = false;  // more than kLineBytes came
    bool ends_with_cr = false;
    void add(std::string_view bytes);
  };

  void finish(Line& line);
  std::string shown(const Line& line) const;

  size_t keep_;
  size_t width_;
  std::deque<Line> done_;
  Line partial_[2];  // by stream
};

}  // namespace toolhost::results
