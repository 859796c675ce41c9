#pragma once
// The places where an edit changes what a version-control tool reads as its repository or its
// configuration (|toolhost-security|): `.git` (a directory, or a file that points elsewhere),
// the files git reads from the work tree that select or name programs, and other VCS control
// directories. An edit there could make an allow-listed read-only command (`git status`) run
// a program of the edit's choosing, so it always needs approval.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace toolhost::tools {

// Whether one path component is such a name, compared as a case-insensitive file system would
// (macOS, Windows): case folded, trailing dots and spaces dropped, the code points HFS+ ignores
// removed, and NTFS's short name `git~1`.
bool is_vcs_control_name(std::string_view component);

// The VCS control name in `path` (relative to root, or absolute), as written or as it resolves
// through existing symlinks, with the component that matched; nullopt when there is none.
std::optional<std::string> vcs_control_component(const std::string& root, const std::string& path);

// For an edit call: why one of its path parameters (`path`, and every `*_path` such as
// `new_path`: the source and destination of a move alike) reaches a VCS control place;
// nullopt when none does.
std::optional<std::string> vcs_edit_reason(const nlohmann::json& params, const std::string& root);

}  // namespace toolhost::tools
