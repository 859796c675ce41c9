#pragma once
// The paths no sandboxed job may read: the home's secret stores and the caller's own
// (Settings::hidden, e.g. toolhost's sign-in records). Landlock leaves them out of its read
// rules, which is enough outside the writable places; beneath one (a project root at the home,
// a writable root or a state dir inside the project), the write rule grants reading too, so
// the namespace covers each of those that exists: looked up by the parent at each spawn (one
// created or replaced since is covered from then on), as mounts the child makes without
// allocating.

#include <string>
#include <vector>

#include "sandbox/child.h"
#include "sandbox/protected_paths.h"
#include "sandbox/sandbox.h"

namespace toolhost::sandbox {

// `path` with its symlinks resolved, or as it is when it cannot be (absent, unreadable).
std::string real_path(const std::string& path);

// Every path that reaches them: each secret store under the home as configured, through the
// home's real path, and where a store that is a symlink leads (its target would be readable
// otherwise); each of Settings::hidden and its real path.
std::vector<std::string> hidden_paths(const Settings& settings);

// Those of `hidden` that Landlock alone does not hide: at or beneath one of `writable` (whose
// rule grants reading too). Compared ancestor by ancestor, from the real path of the deepest
// one that exists, by device and inode, so that a writable root reached by another path (a bind
// mount) counts. Decided when the sandbox is built (the writable places are fixed then).
std::vector<std::string> beneath_writable(const std::vector<std::string>& hidden,
                                          const std::vector<std::string>& writable);

class HiddenMounts {
 public:
  // Looks up `paths` now: each that exists is covered, once per real path. One the host cannot
  // look up (EACCES: it cannot tell what is there) is an error: the spawn fails (closed).
  explicit HiddenMounts(const std::vector<std::string>& paths);

  const HiddenMount* data() const { return mounts_.data(); }
  size_t size() const { return mounts_.size(); }
  // 0, or the errno of the path that could not be looked up.
  int error() const { return error_; }
  const std::string& failed_path() const { return failed_path_; }

  // Which files the mounts cover: one replaced since (another inode) is another mount.
  const std::vector<ReadOnlyBinds::Held>& held() const { return held_; }

 private:
  std::vector<std::string> paths_;  // owns the strings mounts_ points to
  std::vector<HiddenMount> mounts_;
  std::vector<ReadOnlyBinds::Held> held_;
  int error_ = 0;
  std::string failed_path_;
};

}  // namespace toolhost::sandbox
