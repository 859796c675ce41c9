#include "tools/confine.h"

#include <filesystem>

namespace toolhost::tools {
namespace fs = std::filesystem;

bool resolves_inside(const std::string& root, const std::string& path) {
  // The system calls would read the path only up to a NUL; the check must see what they see.
  if (path.find('\0') != std::string::npos) return false;
  std::error_code ec;
  const fs::path root_real = fs::canonical(root, ec);
  if (ec) return false;
  // Component by component, as the kernel walks it: a `..` after a symlink climbs from the
  // link's target, not from the link (`link/../x` is not `x`).
  const fs::path given(path);
  fs::path resolved = given.is_absolute() ? fs::path("/") : root_real;
  for (const fs::path& part : given.relative_path()) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      resolved = resolved.parent_path();
      continue;
    }
    resolved /= part;
    // A symlink exists even when its target does not; canonical() then fails: a dangling
    // link counts as outside, since writing through it would create its target.
    if (!fs::exists(fs::symlink_status(resolved, ec))) continue;  // created later: no link yet
    resolved = fs::canonical(resolved, ec);
    if (ec) return false;
  }
  const fs::path rel = resolved.lexically_normal().lexically_relative(root_real);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace toolhost::tools
