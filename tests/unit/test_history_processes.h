#pragma once
// Helpers for tests of the history shared by several host processes: pipes to synchronise
// with forked children, the raw lines of the file, whether its lock is held, and how long a
// call kept the loop from running.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_jobs.h"

namespace toolhost::jobs::testing {

struct Pipe {
  Pipe() {
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
  void close_read() { ::close(std::exchange(fds[0], -1)); }
  void close_write() { ::close(std::exchange(fds[1], -1)); }
  bool send(const std::string& text) const {
    return ::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }
  // Everything until the writer closes its end (or dies).
  std::string read_all() const {
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer, static_cast<size_t>(n));
    }
    return text;
  }
  bool wait_byte() const {
    char byte = 0;
    return ::read(fds[0], &byte, 1) == 1;
  }
  int fds[2] = {-1, -1};
};

// Runs `body` in a forked child; its return value is the child's exit code.
inline pid_t fork_child(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return pid;
}

// The exit code, or 128 + the signal that ended it.
inline int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::string job_id(uint64_t number) {
  return "th-" + std::to_string(number);
}

// The raw lines of the history file, and which of them are not a JSON object with an id.
struct RawHistory {
  std::vector<nlohmann::json> lines;
  std::vector<std::string> torn;
};

inline RawHistory read_raw(const std::string& path) {
  RawHistory raw;
  std::istringstream in(read_file(path));
  std::string text;
  while (std::getline(in, text)) {
    nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    if (line.is_object() && line.contains("id") && line["id"].is_string()) {
      raw.lines.push_back(std::move(line));
    } else {
      raw.torn.push_back(text.substr(0, 80));
    }
  }
  return raw;
}

// True when another open of history.lock cannot take the lock now.
inline bool lock_is_held(const std::string& state) {
  int fd = ::open((state + "/history.lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

// Longest single call, in microseconds: how long that call kept the loop from running.
struct BlockMeter {
  template <typename F>
  void time(const char* what, F&& call) {
    uint64_t t0 = uv_hrtime();
    call();
    uint64_t us = (uv_hrtime() - t0) / 1000;
    uint64_t& longest = longest_us[what];
    longest = std::max(longest, us);
  }
  std::map<std::string, uint64_t> longest_us;
};

}  // namespace toolhost::jobs::testing
