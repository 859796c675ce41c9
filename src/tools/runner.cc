#include "tools/runner.h"

#include <climits>
#include <cstdlib>
#include <filesystem>

namespace toolhost::tools {
namespace fs = std::filesystem;

uint64_t clamp_model_timeout(const nlohmann::json& value, uint64_t max_timeout_ms) {
  double ms = 0;
  if (value.is_number()) {
    ms = value.get<double>();
  } else if (value.is_string()) {
    ms = std::strtod(value.get<std::string>().c_str(), nullptr);
  }
  if (!(ms > 0) || ms > static_cast<double>(max_timeout_ms)) return max_timeout_ms;
  return static_cast<uint64_t>(ms);
}

bool resolves_inside(const std::string& root, const std::string& path) {
  std::error_code ec;
  fs::path root_real = fs::canonical(root, ec);
  if (ec) return false;
  fs::path full = fs::path(path).is_absolute() ? fs::path(path) : fs::path(root) / path;
  full = full.lexically_normal();
  // Resolve the deepest ancestor that exists; the rest cannot be a symlink yet.
  fs::path existing = full;
  fs::path rest;
  while (!existing.empty() && !fs::exists(existing, ec)) {
    rest = existing.filename() / rest;
    existing = existing.parent_path();
  }
  fs::path resolved = (fs::canonical(existing, ec) / rest).lexically_normal();
  if (ec) return false;
  auto rel = resolved.lexically_relative(root_real);
  return !rel.empty() && *rel.begin() != "..";
}

std::variant<jobs::JobSpec, Refusal> job_for(const parse::ToolCall& call,
                                             const RunOptions& options) {
  if (call.tool != "run_terminal_command") {
    return Refusal{"tool `" + call.tool + "` is not implemented yet"};
  }
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.cwd = options.root;
  spec.timeout_ms = options.timeout_ms;
  const auto& params = call.params;
  if (params.contains("cwd")) {
    std::string cwd = params["cwd"].is_string() ? params["cwd"].get<std::string>() : "";
    if (!resolves_inside(options.root, cwd)) {
      return Refusal{"cwd `" + cwd + "` is outside the project root"};
    }
    spec.cwd = fs::weakly_canonical(fs::path(options.root) / cwd).string();
  }
  if (params.contains("timeout_ms")) {
    spec.timeout_ms = clamp_model_timeout(params["timeout_ms"], options.max_timeout_ms);
  }
  spec.argv = {options.shell, "-c", params.value("command", "")};
  return spec;
}

}  // namespace toolhost::tools
