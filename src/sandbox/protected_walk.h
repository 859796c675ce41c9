#pragma once
// The protected names at every depth of a root. direnv and Neovim's 'exrc' read theirs in each
// directory, git a nested repository's own `.git`: a name below the root is as dangerous as one
// at it. Found by reading directories, which costs in proportion to the tree: done once when a
// sandbox is built and after each sandboxed job, never on the spawn path.

#include <cstddef>
#include <string>
#include <vector>

namespace toolhost::sandbox {

// The paths (relative to `root`, `sub/.envrc`) whose last component is one of `names`, the
// root's own included. Breadth first, reading at most `dir_limit` directories: a limit then
// cuts the deepest levels (vendored trees), not a whole side of the project. Symlinks are not
// followed, and a protected directory is not entered (its read-only bind covers its inside).
std::vector<std::string> walk_names(const std::string& root, const std::vector<std::string>& names,
                                    size_t dir_limit);

}  // namespace toolhost::sandbox
