#pragma once
// The names inside a project that nothing run unasked may write (|toolhost-protected|): the
// places where a version-control tool reads its repository or the programs it runs, and the
// files that make an editor, a shell hook or an agent run something when the project is next
// opened. One list serves the file tools (an auto-accepted edit there asks) and the sandbox
// (bound read-only in a sandboxed job's mount namespace; issue #38).

#include <string>
#include <string_view>
#include <vector>

namespace toolhost::core {

// Every protected name, as a path component (`.git`, `.vscode`, ...).
const std::vector<std::string>& protected_names();

// Whether one path component is a protected name, compared as a case-insensitive file system
// would (macOS, Windows): case folded, trailing dots and spaces dropped, the code points HFS+
// ignores removed, and NTFS's short names (`git~1`).
bool is_protected_name(std::string_view component);

// What kind of place a protected name is, for a message: "version-control configuration" or
// "editor or agent configuration".
std::string_view protected_kind(std::string_view component);

}  // namespace toolhost::core
