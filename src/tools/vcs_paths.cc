#include "tools/vcs_paths.h"

#include <filesystem>

#include "core/protected_names.h"

namespace toolhost::tools {
namespace fs = std::filesystem;
namespace {

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

bool is_vcs_control_name(std::string_view component) { return core::is_protected_name(component); }

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
      if (core::protected_kind(*component) == "version-control configuration") {
        return "`" + path + "` is in version-control configuration (`" + *component +
               "`), which decides what programs git and its kin run: it always needs approval";
      }
      return "`" + path + "` is in editor or agent configuration (`" + *component +
             "`), which runs programs when the project is next opened: it always needs approval";
    }
  }
  return std::nullopt;
}

}  // namespace toolhost::tools
