#pragma once
// Attaching to a buffer and reading it in slices (nvim/buffer_loader.h says why and why it is
// exact): nvim_buf_attach without send_buffer, nvim_buf_line_count, then nvim_buf_get_lines
// one slice at a time, each small enough that Neovim answers it in a few milliseconds, while
// the buffer's lines events go into the partial mirror.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nvim/api.h"
#include "nvim/buffer_loader.h"

namespace toolhost::server {

class BufferReads {
 public:
  // The buffer's lines, read whole; later changes come as lines events again.
  using Loaded = std::function<void(int64_t buf, std::vector<std::string> lines)>;
  // The attach or a read failed (the buffer is gone): nothing more comes for this reading.
  using Failed = std::function<void(int64_t buf, const std::string& error)>;

  // A slice: at most this many rows, and about this many bytes (Neovim copies and encodes a
  // megabyte in 1-3 ms; the whole buffer at once was 0.1-0.2 s for 50 MB).
  static constexpr size_t kSliceRows = 16384;
  static constexpr size_t kSliceBytes = 1 << 20;

  BufferReads(nvim::Api& api, Loaded loaded, Failed failed);

  // Attaches to `buf` and reads it; a reading of it under way starts over.
  void start(int64_t buf);
  // Forgets the reading of `buf` (detached); the answers still to come are dropped.
  void cancel(int64_t buf) { reads_.erase(buf); }
  bool reading(int64_t buf) const { return reads_.count(buf) > 0; }
  // A lines event: true when it belongs to a buffer being read (taken here; dropped while the
  // line count is awaited, since the count and the slices read after it include it).
  bool on_lines(nvim::LinesEvent& event);

 private:
  struct Reading {
    uint64_t id = 0;  // answers of an earlier reading of the buffer carry another
    std::optional<nvim::BufferLoader> loader;  // from the line count's answer on
    int restarts = 0;
  };

  Reading* current(int64_t buf, uint64_t id);
  void count(int64_t buf, Reading& reading);
  void next(int64_t buf, Reading& reading);
  // An event or a slice that did not fit: counts and reads again (at most a few times).
  void restart(int64_t buf, Reading& reading, const char* why);
  void fail(int64_t buf, const std::string& error);

  nvim::Api& api_;
  Loaded loaded_;
  Failed failed_;
  std::map<int64_t, Reading> reads_;
  uint64_t next_id_ = 1;
};

}  // namespace toolhost::server
