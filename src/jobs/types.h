#pragma once
// Value types of the job engine. Knows nothing of Neovim or of tools.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace toolhost::jobs {

enum class Status { Queued, Running, Succeeded, Failed, TimedOut, Canceled, Interrupted };
enum class Stream { Stdout, Stderr };

std::string_view to_string(Status);
bool is_finished(Status);

struct JobSpec {
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::pair<std::string, std::string>> env;  // added to the inherited environment
  uint64_t timeout_ms = 120000;                          // 0 = no timeout
  // Recorded with the job (history, job lists); the engine does not interpret them.
  std::string call_id;
  std::string tool;
  nlohmann::json params;
  std::string buffer_name;
};

// What a job wrote on one stream: a head and a tail kept in memory, exact counts.
class Capture {
 public:
  static constexpr size_t kHeadBytes = 64 * 1024;
  static constexpr size_t kTailBytes = 1024 * 1024;

  void append(std::string_view data);
  const std::string& head() const { return head_; }
  std::string tail() const;
  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return lines_; }
  bool ends_with_newline() const { return last_ == '\n'; }
  // Bytes neither in the head nor in the tail.
  uint64_t omitted_bytes() const;
  // The whole output when nothing was omitted, else head + tail.
  std::string text() const { return head_ + tail(); }
  void release();

 private:
  std::string head_;
  std::string tail_;  // grows to 2 × kTailBytes before its front is dropped (amortised)
  uint64_t bytes_ = 0;
  uint64_t lines_ = 0;
  char last_ = '\n';
};

struct JobInfo {
  std::string id;  // "th-7"
  JobSpec spec;
  Status status = Status::Queued;
  int pid = 0;
  int pgid = 0;
  std::optional<int> exit_code;
  std::optional<int> term_signal;
  std::string error;          // why the job could not start, if it could not
  int64_t started_at_ms = 0;  // wall clock
  double duration_s = 0;      // monotonic
  Capture out;
  Capture err;
};

}  // namespace toolhost::jobs
