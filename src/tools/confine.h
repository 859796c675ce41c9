#pragma once
// Path confinement (SPEC 7): every path a model names must stay inside the project root.

#include <string>

namespace toolhost::tools {

// Whether `path` (relative to root, or absolute) resolves inside `root`: realpath of the
// deepest existing ancestor, so `..` and symlinks that leave the root are caught; a dangling
// symlink, whose target cannot be resolved, and a path holding a NUL byte count as outside.
bool resolves_inside(const std::string& root, const std::string& path);

}  // namespace toolhost::tools
