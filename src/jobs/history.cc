#include "jobs/history.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "base/fs.h"
#include "base/log.h"
#include "jobs/job_json.h"
#include "jobs/types.h"

namespace toolhost::jobs {
namespace {

// Field 22 of /proc/PID/stat: the start time in clock ticks since boot. With the pid it
// names one process: a reused pid has another start time. 0 when unknown.
uint64_t process_start_time(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

std::string dump(const nlohmann::json& line) {
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Line {
  std::string text;
  nlohmann::json json;
};

std::vector<Line> read_lines(const std::string& path) {
  std::vector<Line> lines;
  std::ifstream in(path);
  std::string text;
  while (std::getline(in, text)) {
    nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (!json.is_object() || !json.contains("id") || !json["id"].is_string()) continue;
    lines.push_back({std::move(text), std::move(json)});
  }
  return lines;
}

}  // namespace

History::History(uv_loop_t* loop, std::string state_dir) : loop_(loop), dir_(std::move(state_dir)) {
  host_ = {{"pid", static_cast<int>(::getpid())}, {"start", process_start_time(::getpid())}};
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
  if (::ftruncate(lock_fd_, 0) != 0 ||
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

std::vector<nlohmann::json> History::read_records() const {
  std::vector<nlohmann::json> records;
  std::map<std::string, size_t> index;
  for (Line& line : read_lines(path_)) {
    const std::string id = line.json["id"].get<std::string>();
    auto [it, inserted] = index.emplace(id, records.size());
    if (inserted) records.push_back(nlohmann::json::object());
    records[it->second].update(line.json);
  }
  return records;
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

uint64_t History::allocate(const std::function<nlohmann::json(uint64_t)>& line_for) {
  bool locked = try_lock();
  if (locked) sync_counters();  // an older host may have moved the legacy counter
  uint64_t number = take_number();
  pending_ += dump(line_for(number)) + "\n";
  if (locked) {
    flush_locked();
    unlock();
  }
  if (!pending_.empty()) schedule_retry();
  return number;
}

void History::append(nlohmann::json line) {
  if (!enabled()) return;
  pending_ += dump(line) + "\n";
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
  std::set<uint64_t> numbers;
  for (const Line& line : lines) numbers.insert(job_number(line.json["id"].get<std::string>()));
  if (numbers.size() <= keep) return;
  uint64_t oldest_kept = keep == 0 ? UINT64_MAX : *std::next(numbers.rbegin(), keep - 1);
  std::string kept;
  std::map<std::string, nlohmann::json> removed;
  for (Line& line : lines) {
    const std::string id = line.json["id"].get<std::string>();
    if (job_number(id) >= oldest_kept) {
      kept += line.text + "\n";
    } else {
      removed[id].update(line.json);
    }
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

bool History::host_alive(const nlohmann::json& host) {
  if (!host.is_object()) return false;
  const int pid = number_or(host, "pid", 0);
  const uint64_t start = number_or(host, "start", uint64_t{0});
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  uint64_t now = process_start_time(pid);
  return now == 0 || start == 0 || now == start;
}

}  // namespace toolhost::jobs
