#pragma once
// {state_dir}/history.jsonl, shared by every host that uses the same state dir (SPEC 6).
// One JSON object per line: `queued`, `started` and `ended` lines per job, each tagged with the
// writing host's pid and start time (host_id.h: how a host is known to be alive), and, for a
// job whose call got another id (Engine::rename_call), a line of its id and call_id alone. Writers
// append with O_APPEND under a flock on {state_dir}/history.lock. No call ever waits for that lock
// on the loop: when another host holds it, lines (and a trim) wait in memory and a timer retries.
//
// Job numbers come from {state_dir}/history.ids, whose size is the last number handed out:
// taking one appends a byte, which the kernel serialises, so it needs no lock and never waits.
// history.lock also holds the next number as text, as hosts before history.ids kept it; both
// are kept in step whenever the lock is held, so older hosts sharing the dir stay unique.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace toolhost::jobs {

class History {
 public:
  using Dropped = std::function<void(const nlohmann::json&)>;

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
  // winning, plus "ev" of its last line that has one), in file order. Jobs whose last line is
  // `queued` or `started` and whose host is dead get an `ended` line with status `interrupted`
  // (appended, and set in the returned records). Also makes sure the counter is past every id seen.
  // Reads without the lock when another host holds it: a line being written then is skipped.
  std::vector<nlohmann::json> load();
  // The lines written to the file (by any host) since the last load() or updates(), in file
  // order, each as written (not merged). After a trim replaced the file, every line of the new
  // file again: applying a job's lines in order twice ends in the same record.
  std::vector<nlohmann::json> updates();
  // Takes the next job number (never waits: see history.ids above) and appends
  // `line_for(number)` as append() does; without `write_now`, the line waits for the next
  // append() and goes with it in one locked write.
  uint64_t allocate(const std::function<nlohmann::json(uint64_t)>& line_for, bool write_now = true);
  // Appends a line now when the lock is free, else retries on a timer; lines keep their order.
  void append(const nlohmann::json& line);
  // The same for many lines: one locked write for all of them.
  void append_all(const std::vector<nlohmann::json>& lines);
  // Keeps the newest `keep` jobs (by number), and every job still queued or running on a live
  // host whatever its number (its host writes its log and its next lines); `dropped` is called
  // with each removed record (to delete its log). When another host holds the lock: with `wait`,
  // trims on the retry timer once it is free (`dropped` must live as long as this History); else
  // gives up.
  void trim(size_t keep, const Dropped& dropped, bool wait);
  // Writes whatever is pending, waiting for the lock at most kCloseWaitMs (the host must exit
  // within 1 s), and closes the retry timer. Used at shutdown.
  void close();

  static constexpr uint64_t kCloseWaitMs = 400;

 private:
  struct DeferredTrim {
    size_t keep;
    Dropped dropped;
  };

  bool try_lock();
  void unlock();
  // Under the lock: the legacy counter and history.ids in step, pending lines written, a
  // deferred trim done.
  void flush_locked();
  void sync_counters();
  bool write_pending();
  void trim_locked(size_t keep, const Dropped& dropped);
  void schedule_retry();
  // The pending lines written now when the lock is free, else on the retry timer.
  void write_pending_now();
  uint64_t take_number();
  void raise_ids_to(uint64_t at_least);
  std::vector<nlohmann::json> read_records();

  uv_loop_t* loop_;
  std::string dir_;
  std::string path_;
  int lock_fd_ = -1;
  int ids_fd_ = -1;  // O_APPEND: each one-byte write takes a number
  nlohmann::json host_;
  std::string pending_;
  std::optional<DeferredTrim> deferred_trim_;
  uv_timer_t* retry_ = nullptr;  // heap: freed by its close callback, which may outlive us
  // How far load() and updates() have read: the file (a trim renames a new one in), held
  // open, and the offset after its last complete line.
  int read_fd_ = -1;
  uint64_t read_offset_ = 0;
};

}  // namespace toolhost::jobs
