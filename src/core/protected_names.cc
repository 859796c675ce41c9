#include "core/protected_names.h"

#include <algorithm>
#include <cctype>

namespace toolhost::core {
namespace {

// What each name is to its tool (|toolhost-protected| has the reasons).
constexpr std::string_view kVcsNames[] = {
    ".git",            // git's repository, or a file naming one elsewhere (`gitdir:`)
    ".gitattributes",  // selects filter, diff and textconv drivers, whose programs git runs
    ".gitmodules",     // submodules: where git recurses and what it fetches
    ".gitconfig",      // the usual name of a config file a repository includes (include.path)
    ".lfsconfig",      // git-lfs reads it from the work tree
    ".hg",
    ".hgsub",
    ".svn",
    ".bzr",
    "_darcs",
    ".jj",
    ".pijul",
    ".sl",
    ".fslckout",
    "_fossil_",
    ".fossil-settings",
    "cvs",
};

// Run by an editor, a shell hook or an agent when the project is next opened.
constexpr std::string_view kRunOnOpenNames[] = {
    ".nvim.lua",  // Neovim's 'exrc'
    ".nvimrc",
    ".exrc",
    ".envrc",     // direnv
    ".mcp.json",  // Claude Code's (and toolhost's) project MCP servers: programs to start
    ".vscode",    // tasks.json, settings.json, mcp.json
    ".idea",
    ".claude",
    ".codex",
    ".agents",
};

// NTFS short names: `GIT~1` is `.git`, `GITMOD~1` `.gitmodules`, `GITATT~1` `.gitattributes`.
bool is_short_name(const std::string& name) {
  for (std::string_view stem : {"git~", "gitmod~", "gitatt~"}) {
    if (name.size() > stem.size() && name.compare(0, stem.size(), stem) == 0 &&
        std::all_of(name.begin() + stem.size(), name.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return true;
    }
  }
  return false;
}

// HFS+ ignores these code points in names (`.g\u200cit` is `.git`): U+200C-U+200F,
// U+202A-U+202E, U+206A-U+206F and U+FEFF, in UTF-8.
size_t ignorable_length(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
  if (at + 3 > text.size()) return 0;
  if (byte(0) == 0xE2 && byte(1) == 0x80 &&
      ((byte(2) >= 0x8C && byte(2) <= 0x8F) || (byte(2) >= 0xAA && byte(2) <= 0xAE))) {
    return 3;
  }
  if (byte(0) == 0xE2 && byte(1) == 0x81 && byte(2) >= 0xAA && byte(2) <= 0xAF) return 3;
  if (byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF) return 3;
  return 0;
}

std::string folded(std::string_view component) {
  std::string name;
  for (size_t i = 0; i < component.size();) {
    if (size_t skip = ignorable_length(component, i)) {
      i += skip;
      continue;
    }
    name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(component[i]))));
    ++i;
  }
  // Windows drops trailing dots and spaces: `.git.` and `.git ` are `.git`.
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
  return name;
}

template <size_t N>
bool listed(const std::string& name, const std::string_view (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

const std::vector<std::string>& protected_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all(std::begin(kVcsNames), std::end(kVcsNames));
    all.insert(all.end(), std::begin(kRunOnOpenNames), std::end(kRunOnOpenNames));
    return all;
  }();
  return names;
}

bool is_protected_name(std::string_view component) {
  const std::string name = folded(component);
  if (name.empty()) return false;
  return listed(name, kVcsNames) || listed(name, kRunOnOpenNames) || is_short_name(name);
}

std::string_view protected_kind(std::string_view component) {
  const std::string name = folded(component);
  if (listed(name, kRunOnOpenNames)) return "editor or agent configuration";
  return "version-control configuration";
}

}  // namespace toolhost::core
