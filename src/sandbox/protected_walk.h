#pragma once
// The protected names at every depth of a root. direnv and Neovim's 'exrc' read theirs in each
// directory, git a nested repository's own `.git`: a name below the root is as dangerous as one
// at it. Found by walking the root, once when a sandbox is built and after each sandboxed job,
// never on the spawn path. A walk reads again only the directories that changed since the last:
// reading one (open, getdents, close) cost ~10 times the one stat that tells it did not change.

#include <time.h>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace toolhost::sandbox {

class ProtectedWalk {
 public:
  // The names of `names` under `root`, at most `dir_limit` directories deep into it.
  ProtectedWalk(std::string root, std::vector<std::string> names, size_t dir_limit);

  // The paths (relative to the root, `sub/.envrc`) whose last component is one of the names,
  // the root's own included. Breadth first, over at most `dir_limit` directories: a limit then
  // cuts the deepest levels (vendored trees), not a whole side of the project. Symlinks are not
  // followed, and a protected directory is not entered (its read-only bind covers its inside).
  std::vector<std::string> walk();

 private:
  // What reading a directory found, and its ctime then: adding, removing or renaming an entry
  // moves a directory's ctime, and no call sets it back (utime sets the others).
  struct Listing {
    timespec ctime{};
    bool settled = false;              // its ctime is older than the walk: a later change moves it
    std::vector<std::string> subdirs;  // relative to the root
    std::vector<std::string> found;
  };
  Listing read(const std::string& relative) const;

  std::string root_;
  std::vector<std::string> names_;
  size_t dir_limit_;
  std::unordered_map<std::string, Listing> listings_;  // by relative path; "" is the root
};

}  // namespace toolhost::sandbox
