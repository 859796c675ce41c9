#include "jobs/history.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <utility>

#include "base/fs.h"
#include "base/log.h"
#include "jobs/host_id.h"
#include "jobs/job_json.h"
#include "jobs/types.h"

namespace toolhost::jobs {
namespace {

std::string dump(const nlohmann::json& line) {
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Line {
  std::string text;
  nlohmann::json json;
};

// The lines of the file at `path` from `offset` on; a line without its newline yet (being
// written, or torn by a writer that was killed) is read again next time. `fd` and `offset`
// say what was read before: when `path` is another file by now (a trim renamed a new one in)
// or a shorter one, it is read from its start. Holding the old file open keeps its inode
// from being reused by a later file, which would then pass for it. Both are moved past what
// this read consumed; `fd` stays open (or -1).
std::vector<Line> read_lines(const std::string& path, int& fd, uint64_t& offset) {
  std::vector<Line> lines;
  struct stat now {};
  struct stat held {};
  if (fd < 0 || ::stat(path.c_str(), &now) != 0 || ::fstat(fd, &held) != 0 ||
      now.st_ino != held.st_ino || now.st_dev != held.st_dev) {
    if (fd >= 0) ::close(fd);
    offset = 0;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fstat(fd, &held) != 0) return lines;
  }
  if (static_cast<uint64_t>(held.st_size) < offset) offset = 0;
  std::string text(static_cast<size_t>(static_cast<uint64_t>(held.st_size) - offset), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  size_t at = 0;
  while (at < text.size()) {
    const size_t newline = text.find('\n', at);
    const size_t length = (newline == std::string::npos ? text.size() : newline) - at;
    std::string line = text.substr(at, length);
    nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_object() && json.contains("id") && json["id"].is_string()) {
      lines.push_back({std::move(line), std::move(json)});
    }
    // A last line without its newline (a file edited by hand) is read, but read again next
    // time: it may be a line still being written that happens to parse.
    if (newline == std::string::npos) break;
    at = newline + 1;
    offset += length + 1;
  }
  return lines;
}

std::vector<Line> read_lines(const std::string& path) {
  int fd = -1;
  uint64_t offset = 0;
  std::vector<Line> lines = read_lines(path, fd, offset);
  if (fd >= 0) ::close(fd);
  return lines;
}

}  // namespace

History::History(uv_loop_t* loop, std::string state_dir) : loop_(loop), dir_(std::move(state_dir)) {
  host_ = this_host();
  if (dir_.empty()) return;
  base::make_dirs(dir_);
  path_ = dir_ + "/history.jsonl";
  lock_fd_ = ::open((dir_ + "/history.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) {
    log::error("jobs: cannot open " + dir_ + "/history.lock: " + std::strerror(errno) +
               "; job history is off");
    return;
  }
  ids_fd_ = ::open((dir_ + "/history.ids").c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (ids_fd_ < 0) {
    log::error("jobs: cannot open " + dir_ + "/history.ids: " + std::strerror(errno) +
               "; job history is off");
    ::close(std::exchange(lock_fd_, -1));
    return;
  }
  retry_ = new uv_timer_t;
  uv_timer_init(loop_, retry_);
  retry_->data = this;
}

History::~History() {
  if (retry_) {
    retry_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(retry_),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (ids_fd_ >= 0) ::close(ids_fd_);
  if (read_fd_ >= 0) ::close(read_fd_);
}

bool History::try_lock() {
  return ::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0;
}

void History::unlock() {
  ::flock(lock_fd_, LOCK_UN);
}

uint64_t History::take_number() {
  // With O_APPEND the kernel places each write at the end under the inode lock, and our own
  // file offset ends right after our byte: that offset is ours alone.
  ssize_t n;
  while ((n = ::write(ids_fd_, "\n", 1)) < 0 && errno == EINTR) {
  }
  off_t end = n == 1 ? ::lseek(ids_fd_, 0, SEEK_CUR) : -1;
  if (end > 0) return static_cast<uint64_t>(end);
  // The disk is full or failing: the history cannot be written either. Stay unique here.
  struct stat st {};
  uint64_t guess = ::fstat(ids_fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) + 1 : 1;
  log::error(std::string("jobs: cannot take a job number from history.ids: ") +
             std::strerror(errno));
  return guess;
}

void History::raise_ids_to(uint64_t at_least) {
  struct stat st {};
  if (::fstat(ids_fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) >= at_least) return;
  // One byte at `at_least - 1` through a second, non-appending fd: the file grows to at least
  // that size (sparse), whatever numbers others take meanwhile; it never shrinks.
  int fd = ::open((dir_ + "/history.ids").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::pwrite(fd, "\n", 1, static_cast<off_t>(at_least - 1)) != 1) {
    log::error("jobs: cannot move the job counter past th-" + std::to_string(at_least) + ": " +
               std::strerror(errno));
  }
  if (fd >= 0) ::close(fd);
}

void History::sync_counters() {
  char text[32] = {};
  ssize_t n = ::pread(lock_fd_, text, sizeof text - 1, 0);
  uint64_t legacy_next = n > 0 ? std::strtoull(text, nullptr, 10) : 0;
  if (legacy_next > 1) raise_ids_to(legacy_next - 1);
  struct stat st {};
  if (::fstat(ids_fd_, &st) != 0) return;
  uint64_t next = static_cast<uint64_t>(st.st_size) + 1;
  if (legacy_next >= next) return;
  std::string value = std::to_string(next);
  // The number only grows, so it overwrites the old text; truncating (a metadata write, once
  // per job) is only needed when the old text was longer (a newline after it, say).
  if ((value.size() < static_cast<size_t>(n) && ::ftruncate(lock_fd_, 0) != 0) ||
      ::pwrite(lock_fd_, value.data(), value.size(), 0) != static_cast<ssize_t>(value.size())) {
    log::error(std::string("jobs: cannot update the job counter: ") + std::strerror(errno));
  }
}

bool History::write_pending() {
  if (pending_.empty()) return true;
  int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // A writer killed inside a large write() leaves a line without its end: start on a line of
  // our own, so that only its torn line is unreadable and not also our first one.
  struct stat st {};
  char last = '\n';
  if (::fstat(fd, &st) == 0 && st.st_size > 0) (void)!::pread(fd, &last, 1, st.st_size - 1);
  if (last != '\n') pending_.insert(0, 1, '\n');
  bool ok = base::write_all(fd, pending_);
  ::close(fd);
  if (ok) pending_.clear();
  return ok;
}

void History::flush_locked() {
  sync_counters();
  write_pending();
  if (deferred_trim_) {
    DeferredTrim trim = std::move(*deferred_trim_);
    deferred_trim_.reset();
    trim_locked(trim.keep, trim.dropped);
  }
}

void History::schedule_retry() {
  if (!retry_ || uv_is_active(reinterpret_cast<uv_handle_t*>(retry_))) return;
  uv_timer_start(
      retry_,
      [](uv_timer_t* timer) {
        auto* self = static_cast<History*>(timer->data);
        if (!self || (self->pending_.empty() && !self->deferred_trim_)) return;
        if (self->try_lock()) {
          self->flush_locked();
          self->unlock();
        }
        if (!self->pending_.empty() || self->deferred_trim_) self->schedule_retry();
      },
      10, 0);
}

std::vector<nlohmann::json> History::read_records() {
  std::vector<nlohmann::json> records;
  std::map<std::string, size_t> index;
  read_offset_ = 0;
  for (Line& line : read_lines(path_, read_fd_, read_offset_)) {
    const std::string id = line.json["id"].get<std::string>();
    auto [it, inserted] = index.emplace(id, records.size());
    if (inserted) records.push_back(nlohmann::json::object());
    records[it->second].update(line.json);
  }
  return records;
}

std::vector<nlohmann::json> History::updates() {
  std::vector<nlohmann::json> lines;
  if (!enabled()) return lines;
  for (Line& line : read_lines(path_, read_fd_, read_offset_)) {
    lines.push_back(std::move(line.json));
  }
  return lines;
}

std::vector<nlohmann::json> History::load() {
  if (!enabled()) return {};
  // Every write is one append and a trim renames a complete file, so without the lock we read
  // a consistent prefix: at worst the line being written is cut short, and skipped.
  bool locked = try_lock();
  if (locked) flush_locked();
  std::vector<nlohmann::json> records = read_records();
  uint64_t max_number = 0;
  for (nlohmann::json& record : records) {
    max_number = std::max(max_number, job_number(record["id"].get<std::string>()));
    auto ev = record.find("ev");
    if (ev == record.end() || !ev->is_string() || (*ev != "queued" && *ev != "started")) continue;
    auto host = record.find("host");
    if (host != record.end() && host_alive(*host)) continue;
    nlohmann::json line = {{"ev", "ended"},
                           {"id", record["id"]},
                           {"status", "interrupted"},
                           {"error", "the host that ran this job exited"},
                           {"host", host_}};
    record.update(line);
    pending_ += dump(line) + "\n";
  }
  // The counter must be past every id in the file, even if history.ids was lost.
  raise_ids_to(max_number);
  if (locked) {
    flush_locked();
    unlock();
  }
  if (!pending_.empty()) schedule_retry();
  return records;
}

uint64_t History::allocate(const std::function<nlohmann::json(uint64_t)>& line_for,
                           bool write_now) {
  bool locked = try_lock();
  if (locked) sync_counters();  // an older host may have moved the legacy counter
  uint64_t number = take_number();
  pending_ += dump(line_for(number)) + "\n";
  if (locked) {
    // Unwritten, the line still moves the legacy counter past its number under this lock.
    write_now ? flush_locked() : sync_counters();
    unlock();
  }
  if (write_now && !pending_.empty()) schedule_retry();
  return number;
}

void History::append(const nlohmann::json& line) {
  if (!enabled()) return;
  pending_ += dump(line) + "\n";
  write_pending_now();
}

void History::append_all(const std::vector<nlohmann::json>& lines) {
  if (!enabled() || lines.empty()) return;
  for (const nlohmann::json& line : lines) pending_ += dump(line) + "\n";
  write_pending_now();
}

void History::write_pending_now() {
  if (try_lock()) {
    flush_locked();
    unlock();
  }
  if (!pending_.empty()) schedule_retry();
}

void History::trim(size_t keep, const Dropped& dropped, bool wait) {
  if (!enabled()) return;
  if (try_lock()) {
    deferred_trim_.reset();  // this one does its work
    flush_locked();
    trim_locked(keep, dropped);
    unlock();
  } else if (wait) {
    deferred_trim_ = DeferredTrim{keep, dropped};
    schedule_retry();
  }
}

void History::trim_locked(size_t keep, const Dropped& dropped) {
  std::vector<Line> lines = read_lines(path_);
  // Each job's merged record, oldest number first (ids that are no number sort first).
  std::map<std::pair<uint64_t, std::string>, nlohmann::json> records;
  for (const Line& line : lines) {
    const std::string id = line.json["id"].get<std::string>();
    records[{job_number(id), id}].update(line.json);
  }
  if (records.size() <= keep) return;
  // Past the newest `keep`, a job still queued or running on a live host stays: that host
  // writes its log and its next lines, and another host's view of it follows this file. (Its
  // host being alive is decided as load() decides it; a job whose host died goes.)
  std::map<std::string, bool> alive;  // by host, as written
  auto running_on_live_host = [&](const nlohmann::json& record) {
    auto ev = record.find("ev");
    if (ev == record.end() || (*ev != "queued" && *ev != "started")) return false;
    auto host = record.find("host");
    if (host == record.end()) return false;
    auto [it, inserted] = alive.emplace(dump(*host), false);
    if (inserted) it->second = host_alive(*host);
    return it->second;
  };
  std::map<std::string, nlohmann::json> removed;
  size_t newer = 0;
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (newer < keep) {
      ++newer;
    } else if (!running_on_live_host(it->second)) {
      removed.emplace(it->first.second, std::move(it->second));
    }
  }
  if (removed.empty()) return;
  std::string kept;
  for (Line& line : lines) {
    if (!removed.count(line.json["id"].get<std::string>())) kept += line.text + "\n";
  }
  std::string temp = path_ + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && base::write_all(fd, kept);
  if (fd >= 0) ::close(fd);
  if (ok && ::rename(temp.c_str(), path_.c_str()) == 0) {
    for (const auto& [id, record] : removed) dropped(record);
  } else {
    ::unlink(temp.c_str());
  }
}

void History::close() {
  if (!enabled()) return;
  if (!pending_.empty() || deferred_trim_) {
    // The loop is about to end, so a short bounded wait here costs no responsiveness; a peer
    // that holds the lock longer (stopped, say) costs these lines rather than a hung exit.
    uint64_t deadline = uv_hrtime() + kCloseWaitMs * 1000000;
    bool locked = try_lock();
    while (!locked && uv_hrtime() < deadline) {
      struct timespec pause = {0, 200000};
      ::nanosleep(&pause, nullptr);
      locked = try_lock();
    }
    if (locked) {
      flush_locked();
      unlock();
    } else {
      log::error("jobs: another host held history.lock for " + std::to_string(kCloseWaitMs) +
                 " ms: " + std::to_string(std::count(pending_.begin(), pending_.end(), '\n')) +
                 " history lines were not written");
    }
  }
  if (retry_) {
    uv_close(reinterpret_cast<uv_handle_t*>(retry_),
             [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
    retry_ = nullptr;
  }
}

}  // namespace toolhost::jobs
