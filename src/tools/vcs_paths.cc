#include "tools/vcs_paths.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace toolhost::tools {
namespace fs = std::filesystem;
namespace {

// What each name is to its tool (see |toolhost-security| for the reasons):
constexpr std::string_view kControlNames[] = {
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

std::optional<std::string> control_component(const fs::path& relative) {
  for (const fs::path& part : relative) {
    const std::string text = part.string();
    if (is_vcs_control_name(text)) return text;
  }
  return std::nullopt;
}

bool is_path_parameter(const std::string& key) {
  const std::string suffix = "_path";
  return key == "path" || (key.size() > suffix.size() &&
                           key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0);
}

}  // namespace

bool is_vcs_control_name(std::string_view component) {
  const std::string name = folded(component);
  if (name.empty()) return false;
  for (std::string_view control : kControlNames) {
    if (name == control) return true;
  }
  return is_short_name(name);
}

std::optional<std::string> vcs_control_component(const std::string& root, const std::string& path) {
  const fs::path given(path);
  // As written, `..` and all: `.git/../x` asks too, which costs one approval.
  const fs::path written = given.is_absolute() ? given.lexically_relative(root) : given;
  if (auto found = control_component(written)) return found;
  // As it resolves: `link/config` where `link` is a symlink to `.git`.
  std::error_code ec;
  const fs::path root_real = fs::canonical(root, ec);
  if (ec) return std::nullopt;  // confinement refuses the call anyway
  const fs::path resolved =
      fs::weakly_canonical(given.is_absolute() ? given : root_real / given, ec);
  if (ec) return std::nullopt;
  const fs::path relative = resolved.lexically_relative(root_real);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;  // outside: refused
  return control_component(relative);
}

std::optional<std::string> vcs_edit_reason(const nlohmann::json& params, const std::string& root) {
  if (!params.is_object()) return std::nullopt;
  for (const auto& [key, value] : params.items()) {
    if (!is_path_parameter(key) || !value.is_string()) continue;
    const std::string path = value.get<std::string>();
    if (auto component = vcs_control_component(root, path)) {
      return "`" + path + "` is in version-control configuration (`" + *component +
             "`), which decides what programs git and its kin run: it always needs approval";
    }
  }
  return std::nullopt;
}

}  // namespace toolhost::tools
