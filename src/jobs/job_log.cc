#include "jobs/job_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fs.h"

namespace toolhost::jobs {

JobLog::~JobLog() {
  close();
}

std::string JobLog::open(const std::string& path, uint64_t max_bytes) {
  close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) return std::strerror(errno);
  max_bytes_ = max_bytes;
  data_ = 0;
  dropped_ = 0;
  bytes_ = 0;
  last_ = '\n';
  return {};
}

void JobLog::write(std::string_view data) {
  if (fd_ < 0) return;
  size_t room = data_ < max_bytes_
                    ? static_cast<size_t>(std::min<uint64_t>(max_bytes_ - data_, data.size()))
                    : 0;
  if (room > 0) {
    if (base::write_all(fd_, data.substr(0, room))) {
      data_ += room;
      last_ = data[room - 1];
      bytes_ = data_;
    } else {
      room = 0;
    }
  }
  dropped_ += data.size() - room;
}

void JobLog::close() {
  if (fd_ < 0) return;
  if (dropped_ > 0) {
    // Past the cap the log ends with one line saying what is missing (SPEC 6).
    std::string trailer =
        std::string(last_ == '\n' ? "" : "\n") + "[toolhost: " + std::to_string(dropped_) +
        " bytes dropped: the log is capped at " + std::to_string(max_bytes_) + " bytes]\n";
    if (base::write_all(fd_, trailer)) bytes_ = data_ + trailer.size();
  }
  ::close(fd_);
  fd_ = -1;
}

JobLog::Slice JobLog::read(const std::string& path, uint64_t since, size_t max_bytes) {
  Slice slice;
  slice.next = since;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    slice.error = "cannot read " + path + ": " + std::strerror(errno);
    return slice;
  }
  struct stat st {};
  slice.size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (since > slice.size) since = slice.size;
  size_t want = static_cast<size_t>(std::min<uint64_t>(max_bytes, slice.size - since));
  slice.data.resize(want);
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::pread(fd, slice.data.data() + got, want - got, static_cast<off_t>(since + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  slice.data.resize(got);
  slice.next = since + got;
  return slice;
}

void JobLog::remove(const std::string& path) {
  ::unlink(path.c_str());
}

}  // namespace toolhost::jobs
