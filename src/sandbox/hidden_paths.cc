#include "sandbox/hidden_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <utility>

namespace toolhost::sandbox {
namespace {

void add_once(std::vector<std::string>& paths, const std::string& path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// `path` with its deepest existing ancestor resolved (symlinks and all), the rest as it was.
std::string resolved(const std::string& path) {
  std::string tail;
  for (std::string head = path;; head = parent_dir(head)) {
    char real[PATH_MAX];
    if (::realpath(head.c_str(), real) != nullptr) {
      std::string joined = std::string(real) + tail;
      return joined.size() > 1 && joined.compare(0, 2, "//") == 0 ? joined.substr(1) : joined;
    }
    if (head == "/") return path;
    tail = head.substr(head.find_last_of('/')) + tail;
  }
}

}  // namespace

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

std::vector<std::string> beneath_writable(const std::vector<std::string>& hidden,
                                          const std::vector<std::string>& writable) {
  std::vector<std::pair<dev_t, ino_t>> roots;
  for (const auto& path : writable) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) roots.emplace_back(st.st_dev, st.st_ino);
  }
  std::vector<std::string> found;
  for (const auto& path : hidden) {
    for (std::string dir = resolved(path);; dir = parent_dir(dir)) {
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0 &&
          std::find(roots.begin(), roots.end(), std::make_pair(st.st_dev, st.st_ino)) !=
              roots.end()) {
        found.push_back(path);
        break;
      }
      if (dir == "/") break;
    }
  }
  return found;
}

std::vector<std::string> hidden_paths(const Settings& settings) {
  std::vector<std::string> hidden;
  if (!settings.home.empty()) {
    const std::string home = settings.home;
    const std::string real_home = real_path(home);
    for (const auto& secret : settings.secrets) {
      add_once(hidden, home + "/" + secret);
      if (real_home != home) add_once(hidden, real_home + "/" + secret);
      add_once(hidden, real_path(home + "/" + secret));
    }
  }
  for (const auto& path : settings.hidden) {
    if (path.empty() || path[0] != '/') continue;  // absolute only: relative to what?
    add_once(hidden, path);
    add_once(hidden, real_path(path));
  }
  return hidden;
}

HiddenMounts::HiddenMounts(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      // Absent (or a symlink loop, which nobody can read through): nothing to cover.
      if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG) continue;
      error_ = errno;
      failed_path_ = path;
      return;
    }
    // mount() follows symlinks: cover the real path, once.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
      error_ = errno;
      failed_path_ = path;
      return;
    }
    std::string real(resolved);
    if (std::find(paths_.begin(), paths_.end(), real) != paths_.end()) continue;
    held_.push_back({real, st.st_dev, st.st_ino});
    paths_.push_back(std::move(real));
    mounts_.push_back({nullptr, S_ISDIR(st.st_mode)});
  }
  for (size_t i = 0; i < mounts_.size(); ++i) mounts_[i].path = paths_[i].c_str();
}

}  // namespace toolhost::sandbox
