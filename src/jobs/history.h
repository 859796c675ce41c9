#pragma once
// {state_dir}/history.jsonl, shared by every host that uses the same state dir (SPEC 6).
// One JSON object per line: `queued`, `started` and `ended` lines per job, each tagged with the
// writing host's pid and start time. Writers append with O_APPEND under a flock on
// {state_dir}/history.lock; the lock file also holds the next job number.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolhost::jobs {

class History {
 public:
  // An empty `state_dir` disables persistence: every call is then a no-op.
  History(uv_loop_t* loop, std::string state_dir);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  bool enabled() const { return lock_fd_ >= 0; }
  const std::string& path() const { return path_; }
  // Whoever writes a line: {"pid": …, "start": …} (start = the process start time from /proc).
  const nlohmann::json& host() const { return host_; }

  // Reads the file: one merged object per job (the fields of all its lines, later ones
  // winning, plus "ev" of its last line), in file order. Jobs whose last line is `queued` or
  // `started` and whose host is dead get an `ended` line with status `interrupted` (written now,
  // and set in the returned records). Also makes sure the counter is past every id seen.
  std::vector<nlohmann::json> load();
  // Takes the next job number and appends `line_for(number)` under one lock, so that two hosts
  // never hand out the same id. Synchronous (see take_lock()).
  uint64_t allocate(const std::function<nlohmann::json(uint64_t)>& line_for);
  // Appends a line now when the lock is free, else retries on a timer; lines keep their order.
  void append(nlohmann::json line);
  // Keeps the newest `keep` jobs (by number); `dropped` is called with each removed record
  // (to delete its log). With `wait` false, gives up when another host holds the lock.
  void trim(size_t keep, const std::function<void(const nlohmann::json&)>& dropped, bool wait);
  // Writes whatever is pending, waiting for the lock if needed, and closes the retry timer.
  // Used at shutdown.
  void close();

  // True when the process `host` ({"pid", "start"}) is still running.
  static bool host_alive(const nlohmann::json& host);

 private:
  // Synchronous lock for the rare paths that need an answer now (id allocation, start,
  // shutdown): a non-blocking attempt first; under contention a blocking flock, which only
  // waits for another host's single append or trim.
  void take_lock();
  bool try_lock();
  void unlock();
  bool write_pending();  // under the lock
  void schedule_retry();
  std::vector<nlohmann::json> read_records() const;

  uv_loop_t* loop_;
  std::string dir_;
  std::string path_;
  int lock_fd_ = -1;
  nlohmann::json host_;
  std::string pending_;
  uv_timer_t* retry_ = nullptr;  // heap: freed by its close callback, which may outlive us
};

}  // namespace toolhost::jobs
