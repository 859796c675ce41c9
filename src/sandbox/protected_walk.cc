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

}  // namespace

std::vector<std::string> walk_names(const std::string& root, const std::vector<std::string>& names,
                                    size_t dir_limit) {
  std::vector<std::string> found;
  std::deque<std::string> pending = {""};  // relative directories; "" is the root
  for (size_t read = 0; !pending.empty() && read < dir_limit; ++read) {
    const std::string dir = std::move(pending.front());
    pending.pop_front();
    const std::string path = dir.empty() ? root : root + "/" + dir;
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;  // gone, or unreadable: nothing below it can be listed either
    DIR* stream = ::fdopendir(fd);
    if (!stream) {
      ::close(fd);
      continue;
    }
    while (const dirent* entry = ::readdir(stream)) {
      const char* name = entry->d_name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      std::string relative = dir.empty() ? name : dir + "/" + name;
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        found.push_back(std::move(relative));
      } else if (is_directory(::dirfd(stream), *entry)) {
        pending.push_back(std::move(relative));
      }
    }
    ::closedir(stream);
  }
  return found;
}

}  // namespace toolhost::sandbox
