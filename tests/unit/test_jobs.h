#pragma once
// Helpers for the job engine tests: a libuv loop run until a condition holds, temporary
// directories, and checks on real processes (fds, RSS, process groups).

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "jobs/engine.h"
#include "test_loop.h"

namespace toolhost::jobs::testing {

// Sanitizer builds keep freed memory in quarantine: RSS bounds only hold in normal builds.
// Asked of the program, not of how this file was compiled: the sanitizer build links the
// normal build's compiled tests (tests/CMakeLists.txt, TOOLHOST_TEST_CODE_FROM).
extern "C" __attribute__((weak)) void __asan_init();
inline const bool kSanitized = &__asan_init != nullptr;

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "toolhost-jobs-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      throw std::runtime_error("cannot create a temporary directory " + pattern + ": " +
                               std::strerror(errno));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// run_until(loop, done, timeout_ms): test_loop.h.
using ::toolhost::testing::run_until;

// Sets an environment variable for one scope, then restores it (or its absence): the tests
// share one process, and every child a later test spawns inherits the environment.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = ::getenv(name_.c_str())) old_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

inline size_t open_fds() {
  size_t count = 0;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (::readdir(dir)) ++count;
    ::closedir(dir);
  }
  return count;
}

// VmRSS of this process in bytes.
inline uint64_t rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::getline(in, key);
  }
  return 0;
}

// Orphaned grandchildren are reparented to this process (not init), so that a test sees them
// and can reap them: a survivor cannot hide.
inline void become_subreaper() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

// True when no process of group `pgid` is left (zombies reparented to us are reaped first).
inline bool group_empty(int pgid) {
  siginfo_t info{};
  while (::waitid(P_PGID, static_cast<id_t>(pgid), &info, WEXITED | WNOHANG) == 0 &&
         info.si_pid != 0) {
    info = {};
  }
  return ::kill(-pgid, 0) != 0 && errno == ESRCH;
}

// Runs `loop` (the engine's SIGKILL timers need it) until group `pgid` is empty. An absence
// announces itself by no event, so a 2 ms timer re-checks; false after `timeout_ms`.
inline bool group_gone(uv_loop_t* loop, int pgid, uint64_t timeout_ms = 5000) {
  if (pgid <= 0) return false;
  uv_timer_t poll;
  uv_timer_init(loop, &poll);
  uv_timer_start(
      &poll, [](uv_timer_t*) {}, 2, 2);
  bool gone = run_until(
      loop, [&] { return group_empty(pgid); }, timeout_ms);
  uv_close(reinterpret_cast<uv_handle_t*>(&poll), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return gone;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The lines of the history file of an engine made with persistent(dir).
inline std::vector<nlohmann::json> history_lines(const TempDir& dir) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_file(dir / "state/history.jsonl"));
  std::string line;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Options of an engine that keeps history and logs under `dir` (a host with a state dir).
inline EngineOptions persistent(const TempDir& dir) {
  EngineOptions options;
  options.state_dir = dir / "state";
  options.cache_dir = dir / "cache";
  options.kill_grace_ms = 200;
  return options;
}

inline JobSpec shell(const std::string& command, uint64_t timeout_ms = 20000) {
  JobSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.timeout_ms = timeout_ms;
  spec.tool = "run_terminal_command";
  spec.params = {{"command", command}};
  return spec;
}

// One loop and one engine per test; TearDown shuts the engine down and checks that every
// libuv handle was closed.
class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    become_subreaper();
    uv_loop_init(&loop_);
  }

  void TearDown() override {
    if (engine_) stop();
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0) << "a libuv handle was left open";
  }

  Engine& make(EngineOptions options = {}) {
    if (options.kill_grace_ms == EngineOptions{}.kill_grace_ms) options.kill_grace_ms = 200;
    engine_ = std::make_unique<Engine>(&loop_, std::move(options));
    return *engine_;
  }

  void stop(uint64_t grace_ms = 200) {
    bool done = false;
    engine_->shutdown(grace_ms, [&] { done = true; });
    EXPECT_TRUE(run_until(
        &loop_, [&] { return done; }, 10000))
        << "shutdown never finished";
    engine_.reset();
  }

  // Submits and runs until it finishes; returns a copy of what `finished` saw.
  JobInfo run(JobSpec spec, uint64_t timeout_ms = 20000) {
    JobInfo seen;
    bool done = false;
    JobEvents events;
    events.finished = [&](const JobInfo& info) {
      seen = info;
      done = true;
    };
    engine_->submit(std::move(spec), std::move(events));
    EXPECT_TRUE(run_until(
        &loop_, [&] { return done; }, timeout_ms))
        << "job never finished";
    return seen;
  }

  uv_loop_t loop_{};
  std::unique_ptr<Engine> engine_;
};

}  // namespace toolhost::jobs::testing
