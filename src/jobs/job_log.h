#pragma once
// The log file of one job (SPEC 6): the raw bytes of stdout and stderr in arrival order, as a
// terminal would show them, with no framing. Past its cap the log stops growing, and close()
// ends it with one line saying how many bytes were dropped. A JobLog owns its file descriptor;
// what to log where, and when to delete a log, is the engine's business.

#include <cstdint>
#include <string>
#include <string_view>

namespace toolhost::jobs {

class JobLog {
 public:
  // One read of a log file (by path: the job may be gone, or another host's).
  struct Slice {
    std::string data;
    uint64_t next = 0;  // offset after `data`
    uint64_t size = 0;  // size of the file when read
    std::string error;  // the file cannot be read
  };

  JobLog() = default;
  ~JobLog();
  JobLog(const JobLog&) = delete;
  JobLog& operator=(const JobLog&) = delete;

  // Creates (or truncates) `path`, keeping at most `max_bytes` of output. Returns an error
  // message, empty on success.
  std::string open(const std::string& path, uint64_t max_bytes);
  bool is_open() const { return fd_ >= 0; }
  // Appends what fits under the cap and counts the rest as dropped.
  void write(std::string_view data);
  // Writes the trailer line when output was dropped, and closes the file.
  void close();
  // Size of the file: the output written, plus the trailer once closed.
  uint64_t bytes() const { return bytes_; }

  // Up to `max_bytes` of the log file at `path` from offset `since` (clamped to its size).
  static Slice read(const std::string& path, uint64_t since, size_t max_bytes);
  static void remove(const std::string& path);

 private:
  int fd_ = -1;
  uint64_t max_bytes_ = 0;
  uint64_t data_ = 0;     // bytes of output written
  uint64_t dropped_ = 0;  // bytes of output past max_bytes_
  uint64_t bytes_ = 0;    // size of the file
  char last_ = '\n';      // last byte written
};

}  // namespace toolhost::jobs
