#include "sandbox/protected_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>

namespace toolhost::sandbox {
namespace {

bool is_directory(int dir_fd, const dirent& entry) {
  if (entry.d_type != DT_UNKNOWN) return entry.d_type == DT_DIR;
  // Some file systems leave the type out of their entries: ask without following a link.
  struct stat st {};
  return ::fstatat(dir_fd, entry.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

bool before(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

bool same(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

ProtectedWalk::ProtectedWalk(std::string root, std::vector<std::string> names, size_t dir_limit)
    : root_(std::move(root)), names_(std::move(names)), dir_limit_(dir_limit) {}

ProtectedWalk::Listing ProtectedWalk::read(const std::string& relative) const {
  Listing listing;
  const std::string path = relative.empty() ? root_ : root_ + "/" + relative;
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return listing;  // gone, or unreadable: nothing below it can be listed either
  DIR* stream = ::fdopendir(fd);
  if (!stream) {
    ::close(fd);
    return listing;
  }
  while (const dirent* entry = ::readdir(stream)) {
    const char* name = entry->d_name;
    if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
    std::string child = relative.empty() ? name : relative + "/" + name;
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
      listing.found.push_back(std::move(child));
    } else if (is_directory(::dirfd(stream), *entry)) {
      listing.subdirs.push_back(std::move(child));
    }
  }
  ::closedir(stream);
  return listing;
}

std::vector<std::string> ProtectedWalk::walk() {
  // Files are stamped from this clock (or a finer one): a directory changed after this moment
  // gets a later ctime than one read now, unless both fall in this tick (then not settled).
  timespec started{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &started);
  std::unordered_map<std::string, Listing> listings;
  std::vector<std::string> found;
  std::deque<std::string> pending = {""};
  for (size_t count = 0; !pending.empty() && count < dir_limit_; ++count) {
    std::string dir = std::move(pending.front());
    pending.pop_front();
    struct stat st {};
    const std::string path = dir.empty() ? root_ : root_ + "/" + dir;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    auto known = listings_.find(dir);
    Listing listing;
    if (known != listings_.end() && known->second.settled &&
        same(known->second.ctime, st.st_ctim)) {
      listing = std::move(known->second);
    } else {
      // The stat came first: a change while reading moves the ctime past the one kept.
      listing = read(dir);
      listing.ctime = st.st_ctim;
      listing.settled = before(st.st_ctim, started);
    }
    found.insert(found.end(), listing.found.begin(), listing.found.end());
    pending.insert(pending.end(), listing.subdirs.begin(), listing.subdirs.end());
    listings.emplace(std::move(dir), std::move(listing));
  }
  listings_ = std::move(listings);
  return found;
}

}  // namespace toolhost::sandbox
