#include "tools/confine.h"

#include <climits>
#include <filesystem>

namespace toolhost::tools {
namespace fs = std::filesystem;
namespace {

// The path as an error message shows it: quoted, a very long one cut.
std::string shown(const std::string& path) {
  constexpr size_t kShown = 80;
  std::string text;
  for (char c : path.substr(0, kShown)) text += c == '\0' ? std::string("\\0") : std::string(1, c);
  return "`" + text + (path.size() > kShown ? "…`" : "`");
}

}  // namespace

std::optional<std::string> confinement_error(const std::string& root, const std::string& path) {
  // The system calls would read the path only up to a NUL; the check must see what they see.
  if (path.find('\0') != std::string::npos) return shown(path) + " holds a NUL byte";
  if (path.size() >= PATH_MAX) return shown(path) + " is longer than a path may be";
  if (!path.empty() && path[0] == '~') {
    return shown(path) + " names the home directory, outside the project root";
  }
  if (!path.empty() && path[0] == '-') {
    return shown(path) + " starts with `-`, so a program would read it as an option";
  }
  std::error_code ec;
  const fs::path root_real = fs::canonical(root, ec);
  if (ec) return "the project root `" + root + "` does not exist";
  // Component by component, as the kernel walks it: a `..` after a symlink climbs from the
  // link's target, not from the link (`link/../x` is not `x`).
  const fs::path given(path);
  fs::path resolved = given.is_absolute() ? fs::path("/") : root_real;
  bool through_link = false;
  for (const fs::path& part : given.relative_path()) {
    if (part.empty() || part == ".") continue;
    if (part.string().size() > NAME_MAX) return shown(path) + " has a name longer than a file's";
    if (part == "..") {
      resolved = resolved.parent_path();
      continue;
    }
    resolved /= part;
    const fs::file_status status = fs::symlink_status(resolved, ec);
    if (!fs::exists(status)) continue;  // created later: no link yet
    through_link = through_link || fs::is_symlink(status);
    // A symlink exists even when its target does not; canonical() then fails: a dangling link
    // counts as outside, since writing through it would create its target.
    resolved = fs::canonical(resolved, ec);
    if (ec) {
      return shown(path) +
             " goes through a symlink to a path that does not exist; writing "
             "through it could create a file outside the project root";
    }
  }
  const fs::path rel = resolved.lexically_normal().lexically_relative(root_real);
  if (!rel.empty() && *rel.begin() != "..") return std::nullopt;
  if (through_link) return shown(path) + " leads out of the project root through a symlink";
  return shown(path) + " is outside the project root";
}

}  // namespace toolhost::tools
