#include "tools/runner.h"

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "tools/confine.h"
#include "tools/file_ops.h"

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

namespace {

std::string_view json_type(const nlohmann::json& value) {
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "a list";
  if (value.is_object()) return "an object";
  if (value.is_null()) return "null";
  return "a string";
}

// A string parameter of `call`; absent is "" when it is optional.
core::Result<std::string> string_param(const core::ToolCall& call, const char* name,
                                       bool required) {
  auto it = call.params.find(name);
  if (it == call.params.end() || (!required && it->is_null())) {
    if (!required) return std::string();
    return core::error("parameter `" + std::string(name) + "` is missing");
  }
  if (!it->is_string()) {
    return core::error("parameter `" + std::string(name) + "` must be a string, not " +
                       std::string(json_type(*it)));
  }
  return it->get<std::string>();
}

// What every job of a call records, in the root, with the configured timeout or the model's
// (clamped).
jobs::JobSpec base_spec(const core::ToolCall& call, const core::Config& config,
                        const std::string& root) {
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.cwd = root;
  spec.timeout_ms = config.timeout_ms;
  if (call.params.contains("timeout_ms")) {
    spec.timeout_ms = clamp_model_timeout(call.params["timeout_ms"], config.max_timeout_ms);
  }
  return spec;
}

// The read-only file tools run as functions off the loop (SPEC 7); their path is checked
// before they are queued, so a refusal names the rule without running anything.
core::Result<jobs::JobSpec> file_task(const core::ToolCall& call, const core::Config& config,
                                      const std::string& root) {
  using Operation = core::Result<std::string> (*)(const std::string&, const nlohmann::json&);
  Operation operation = call.tool == "read_file" ? &read_file : &list_directory;
  const bool path_required = call.tool == "read_file";
  auto path = string_param(call, "path", path_required);
  if (!path) return core::error(path.error());
  if (!path->empty() && !resolves_inside(root, *path)) {
    return core::error("`" + *path + "` is outside the project root");
  }
  jobs::JobSpec spec = base_spec(call, config, root);
  spec.task = [operation, root, params = call.params] {
    auto text = operation(root, params);
    if (!text) return jobs::TaskOutcome{1, "", text.error()};
    return jobs::TaskOutcome{0, std::move(*text), ""};
  };
  return spec;
}

// `rg` when it is on PATH, else `grep -rn`; both print `path:line:text` and exit 1 when
// nothing matched, which is a success with no output here.
core::Result<jobs::JobSpec> search_job(const core::ToolCall& call, const core::Config& config,
                                       const std::string& root) {
  auto pattern = string_param(call, "pattern", true);
  if (!pattern) return core::error(pattern.error());
  auto path = string_param(call, "path", false);
  if (!path) return core::error(path.error());
  auto glob = string_param(call, "glob", false);
  if (!glob) return core::error(glob.error());
  const std::string where = path->empty() ? "." : *path;
  if (!resolves_inside(root, where)) {
    return core::error("`" + where + "` is outside the project root");
  }
  jobs::JobSpec spec = base_spec(call, config, root);
  if (core::on_path("rg")) {
    spec.argv = {"rg", "--line-number", "--no-heading", "--color", "never"};
    if (!glob->empty()) spec.argv.insert(spec.argv.end(), {"--glob", *glob});
  } else {
    spec.argv = {"grep", "-rn"};
    if (!glob->empty()) spec.argv.push_back("--include=" + *glob);
  }
  // `--` ends the options: a pattern or path starting with `-` is not one.
  spec.argv.insert(spec.argv.end(), {"--", *pattern, where});
  spec.ok_exit_codes = {0, 1};
  return spec;
}

}  // namespace

core::Result<jobs::JobSpec> job_for(const core::ToolCall& call, const core::Config& config,
                                    const std::string& root) {
  if (call.tool == "read_file" || call.tool == "list_directory") {
    return file_task(call, config, root);
  }
  if (call.tool == "search_files") return search_job(call, config, root);
  if (call.tool != "run_terminal_command") {
    return core::error("tool `" + call.tool + "` is not implemented yet");
  }
  auto command = string_param(call, "command", true);
  if (!command) return core::error(command.error());
  jobs::JobSpec spec = base_spec(call, config, root);
  if (call.params.contains("cwd")) {
    auto cwd = string_param(call, "cwd", false);
    if (!cwd) return core::error(cwd.error());
    if (!resolves_inside(root, *cwd)) {
      return core::error("cwd `" + *cwd + "` is outside the project root");
    }
    spec.cwd = fs::weakly_canonical(fs::path(root) / *cwd).string();
  }
  spec.argv = {config.shell, "-c", *command};
  return spec;
}

}  // namespace toolhost::tools
