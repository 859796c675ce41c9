#pragma once
// A buffer read in slices while the user may edit it. nvim_buf_attach(send_buffer = true)
// makes Neovim build and send the whole buffer as one event: a 50 MB chat froze the editor for
// 0.1-0.2 s. Instead the host attaches without it, asks nvim_buf_line_count, then reads the
// rows with nvim_buf_get_lines a slice at a time; the lines events that arrive meanwhile are
// applied here to a mirror whose rows are either known or still to read.
//
// Why it is exact: Neovim answers requests and sends a channel's buffer events in the order it
// runs them, on one channel. So when an answer arrives, every change made before Neovim ran that
// request has already been applied here, and the answer describes the same rows as this mirror:
// the count gives the mirror's length (every row unknown), and a slice's lines are the mirror's
// rows from its start, whatever moved them since the request left. Events before the count's
// answer change rows the count and the slices read afterwards anyway: they are dropped.
//
//   BufferLoader loader(count);              // nvim_buf_line_count's answer
//   loader.on_lines(first, last, lines);     // each nvim_buf_lines_event after it
//   auto slice = loader.next_slice();        // request nvim_buf_get_lines(slice->first, ->end)
//   loader.on_slice(first, end, lines);      // its answer
//   if (loader.complete()) lines = loader.take();

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace toolhost::nvim {

class BufferLoader {
 public:
  struct Slice {
    int64_t first = 0;
    int64_t end = 0;  // exclusive
  };

  explicit BufferLoader(int64_t line_count);

  // Rows [first, last) became `lines` (a lines event). False when the rows do not fit the
  // mirror (an event that does not belong to this reading): the caller reads again.
  bool on_lines(int64_t first, int64_t last, std::vector<std::string> lines);
  // nvim_buf_get_lines(start, end, strict_indexing = false) answered `lines`: the rows from
  // `start` as they are now. False when their number does not fit the mirror (the caller reads
  // again).
  bool on_slice(int64_t start, int64_t end, std::vector<std::string> lines);
  // The first rows still unknown, at most `max_rows` and about `max_bytes` (judged from the
  // lines read so far; the first slice is a thousand rows at most); none once complete.
  std::optional<Slice> next_slice(size_t max_rows, size_t max_bytes) const;
  bool complete() const { return unknown_ == 0; }
  // The buffer's lines, once complete; leaves the loader empty.
  std::vector<std::string> take();

  size_t size() const { return rows_.size(); }
  size_t unknown() const { return unknown_; }

 private:
  std::vector<std::string> rows_;
  std::vector<char> known_;  // per row
  size_t unknown_ = 0;
  mutable size_t first_unknown_ = 0;  // no unknown row before it (a cache for next_slice)
  // For the slice size: bytes and rows read so far.
  size_t read_bytes_ = 0;
  size_t read_rows_ = 0;
};

}  // namespace toolhost::nvim
