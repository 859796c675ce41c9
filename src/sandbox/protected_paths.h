#pragma once
// The protected names of a root as the child binds them read-only: looked up by the parent at
// each spawn (a name created since is bound from then on), as paths and mount flags the child
// uses without allocating. The names are paths relative to the root: the root's own (`.git`)
// and those a walk found below it (`sub/.envrc`, protected_walk.h).

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "sandbox/child.h"

namespace toolhost::sandbox {

// The names (relative to `root`) that exist now (a symlink counts, even dangling).
std::vector<std::string> existing_names(const std::string& root,
                                        const std::vector<std::string>& names);

class ReadOnlyBinds {
 public:
  // Looks up `names` under `root`. A `.git` file, at any depth (a worktree's or a submodule's:
  // `gitdir: PATH`) adds the directory it names, and that directory's `commondir` (a worktree's
  // shared repository: its config and hooks are there).
  ReadOnlyBinds(const std::string& root, const std::vector<std::string>& names);

  const ReadOnlyBind* data() const { return binds_.data(); }
  size_t size() const { return binds_.size(); }

  // Which files the binds hold: a bind holds the file it was made of, so one replaced since
  // (an editor's save by rename, `rm -rf sub/.git; git init sub`) is another bind.
  struct Held {
    std::string path;
    dev_t device;
    ino_t inode;
    bool operator==(const Held& other) const {
      return path == other.path && device == other.device && inode == other.inode;
    }
  };
  const std::vector<Held>& held() const { return held_; }

 private:
  void add(std::string path, const struct stat& st);
  void add_git_dirs(const std::string& git_file);

  std::vector<std::string> paths_;  // owns the strings binds_ points to
  std::vector<ReadOnlyBind> binds_;
  std::vector<Held> held_;
};

}  // namespace toolhost::sandbox
