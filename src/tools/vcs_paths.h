#pragma once
// The protected places of a project (core/protected_names.h, |toolhost-protected|) as edits meet
// them: where a version-control tool reads its repository or its configuration (`.git`, a
// directory or a file that points elsewhere; the files git reads from the work tree that select
// or name programs; other VCS control directories), and the editor and agent configuration that
// runs programs when the project is next opened (`.nvim.lua`, `.envrc`, `.vscode/`, ...). An
// edit there could make an allow-listed read-only command (`git status`) or the next `nvim` run
// a program of the edit's choosing, so it always needs approval.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace toolhost::tools {

// Whether one path component is such a name (core::is_protected_name).
bool is_vcs_control_name(std::string_view component);

// The protected name in `path` (relative to root, or absolute), as written or as it resolves
// through existing symlinks, with the component that matched; nullopt when there is none.
std::optional<std::string> vcs_control_component(const std::string& root, const std::string& path);

// For an edit call: why one of its path parameters (`path`, and every `*_path` such as
// `new_path`: the source and destination of a move alike) reaches a protected place;
// nullopt when none does.
std::optional<std::string> vcs_edit_reason(const nlohmann::json& params, const std::string& root);

}  // namespace toolhost::tools
