#pragma once
// Path confinement (SPEC 7): every path a model names must stay inside the project root.

#include <optional>
#include <string>

namespace toolhost::tools {

// Why `path` (relative to root, or absolute) does not resolve inside `root`, naming the rule;
// nullopt when it does. Resolved as the kernel walks it: realpath of each existing component,
// so `..` and symlinks that leave the root are caught. Also refused: a dangling symlink (writing
// through it would create its target, wherever that is), a path holding a NUL byte, one longer
// than the system takes, one starting with `~` (the model means the home directory) or `-`
// (a program would read it as an option).
std::optional<std::string> confinement_error(const std::string& root, const std::string& path);

inline bool resolves_inside(const std::string& root, const std::string& path) {
  return !confinement_error(root, path);
}

}  // namespace toolhost::tools
