#pragma once
// Defence in depth for the terminal commands auto-run starts (|toolhost-security|): git must
// not run a program that a repository setting names, whoever wrote the setting. Edits of the
// repository's configuration need approval already (vcs_paths.h); this holds even if one
// slipped through, or if the repository came that way.

#include <string>
#include <utility>
#include <vector>

namespace toolhost::tools {

// The environment added to an auto-run command: GIT_CONFIG_COUNT/KEY_n/VALUE_n (git ≥ 2.31,
// command-line scope: above every config file, inherited by the git processes git starts)
// switching off core.fsmonitor, hooks, diff.external, the signature programs and bare
// repositories found by discovery; GIT_ALLOW_PROTOCOL empty (no transport, so no lazy fetch
// of a partial clone, no ssh, no `ext::`); GIT_PAGER=cat.
std::vector<std::pair<std::string, std::string>> git_guard_env();

// `git diff`, `git log`, `git show` and `git whatchanged` get `--no-ext-diff --no-textconv`
// right after the subcommand, which switches off the diff and textconv drivers that
// .gitattributes selects (no setting can: their names are the repository's). The command is
// one that passed the allow list (plain words, no shell syntax); any other is returned as it
// is.
std::string with_git_guard_options(const std::string& command);

}  // namespace toolhost::tools
