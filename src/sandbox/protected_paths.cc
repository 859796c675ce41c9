#include "sandbox/protected_paths.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>

namespace toolhost::sandbox {
namespace {

// The flags a user namespace locks on a mount it inherited: a read-only remount must repeat
// them, or the kernel refuses it (EPERM).
unsigned long locked_flags(const std::string& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) return 0;
  unsigned long flags = 0;
  if (fs.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (fs.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (fs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (fs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (fs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (fs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// The first line of a small file, without its newline; empty when unreadable.
std::string first_line(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[4096];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n <= 0) return {};
  std::string text(buffer, static_cast<size_t>(n));
  size_t end = text.find_first_of("\r\n");
  if (end != std::string::npos) text.resize(end);
  return text;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

std::string resolve(const std::string& base_dir, const std::string& path) {
  return !path.empty() && path[0] == '/' ? path : base_dir + "/" + path;
}

bool is_git(const std::string& relative) {
  const std::string git = ".git";
  return relative.size() >= git.size() &&
         relative.compare(relative.size() - git.size(), git.size(), git) == 0 &&
         (relative.size() == git.size() || relative[relative.size() - git.size() - 1] == '/');
}

}  // namespace

std::vector<std::string> existing_names(const std::string& root,
                                        const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const auto& name : names) {
    // lstat: a symlink the job made (`.nvim.lua -> elsewhere`) counts, even dangling.
    struct stat st {};
    if (::lstat((root + "/" + name).c_str(), &st) == 0) found.push_back(name);
  }
  return found;
}

ReadOnlyBinds::ReadOnlyBinds(const std::string& root, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    std::string path = root + "/" + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    if (is_git(name) && S_ISREG(st.st_mode)) add_git_dirs(path);
    add(std::move(path), st);
  }
  binds_.reserve(paths_.size());
  for (const auto& path : paths_) binds_.push_back({path.c_str(), locked_flags(path)});
}

void ReadOnlyBinds::add(std::string path, const struct stat& st) {
  // Two `.git` files may name the same git dir, or the same common dir: one bind is enough.
  if (std::find(paths_.begin(), paths_.end(), path) != paths_.end()) return;
  held_.push_back({path, st.st_dev, st.st_ino});
  paths_.push_back(std::move(path));
}

void ReadOnlyBinds::add_git_dirs(const std::string& git_file) {
  const std::string prefix = "gitdir: ";
  std::string line = first_line(git_file);
  if (line.compare(0, prefix.size(), prefix) != 0) return;
  std::string git_dir = resolve(dir_of(git_file), line.substr(prefix.size()));
  struct stat st {};
  if (::stat(git_dir.c_str(), &st) != 0) return;
  add(git_dir, st);
  std::string common = first_line(git_dir + "/commondir");
  if (!common.empty() && ::stat(resolve(git_dir, common).c_str(), &st) == 0) {
    add(resolve(git_dir, common), st);
  }
}

}  // namespace toolhost::sandbox
