#include "tools/runner.h"

#include <cstdlib>
#include <filesystem>

#include "tools/confine.h"
#include "tools/custom_job.h"
#include "tools/git_guard.h"
#include "tools/job_spec.h"
#include "tools/params.h"
#include "tools/policy.h"
#include "tools/sandboxes.h"

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

jobs::JobSpec base_spec(const core::ToolCall& call, const RunContext& context) {
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.cwd = context.root;
  spec.timeout_ms = context.config.timeout_ms;
  if (call.params.contains("timeout_ms")) {
    spec.timeout_ms = clamp_model_timeout(call.params["timeout_ms"], context.config.max_timeout_ms);
  }
  return spec;
}

namespace {

core::Result<jobs::JobSpec> terminal_job(const core::ToolCall& call, const RunContext& context) {
  auto command = string_param(call.params, "command");
  if (!command) return core::error(command.error());
  jobs::JobSpec spec = base_spec(call, context);
  if (call.params.contains("cwd")) {
    auto cwd = string_param(call.params, "cwd", std::string());
    if (!cwd) return core::error(cwd.error());
    if (auto refused = confinement_error(context.root, *cwd)) {
      return core::error("cwd " + *refused);
    }
    spec.cwd = fs::weakly_canonical(fs::path(context.root) / *cwd).string();
  }
  spec.argv = {context.config.shell, "-c", *command};
  if (context.automatic) {
    spec.argv.back() = with_git_guard_options(*command);
    for (auto& setting : git_guard_env()) spec.env.push_back(std::move(setting));
  }
  return spec;
}

// The model's parameters are the tool's own arguments (a `timeout_ms` among them is the
// tool's): the job's timeout is the server's.
core::Result<jobs::JobSpec> remote_job(const core::ToolCall& call, const core::RemoteTool& tool,
                                       RemoteTools& remote, const RunContext& context) {
  auto function = remote.call(tool, call.params);
  if (!function) return core::error(function.error());
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.cwd = context.root;
  spec.timeout_ms = remote.timeout_ms(tool);
  spec.stream = std::move(*function);
  // It runs: approved by the user, or by auto-run with the fingerprint approved before.
  if (tool.approved_by_name) remote.record_fingerprint(tool);
  return spec;
}

// A process that auto-run starts (or, with sandbox_approved, one the user approved) runs in
// the sandbox when the policy says so (sandbox_need); it never falls back to running outside.
core::Result<jobs::JobSpec> sandboxed(core::Result<jobs::JobSpec> spec, const core::ToolCall& call,
                                      const RunContext& context) {
  if (!spec || (spec->argv.empty() && spec->steps.empty())) return spec;
  if (!context.automatic && !context.config.sandbox.approved) return spec;
  SandboxNeed need = sandbox_need(call, context.config, context.root);
  if (!need.sandboxed) return spec;
  auto box = sandbox_for(context.config, context.root, need.network);
  if (!box) return core::error(box.error());
  spec->sandbox = *box;
  return spec;
}

}  // namespace

core::Result<jobs::JobSpec> job_for(const core::ToolCall& call, const RunContext& context) {
  if (context.remote) {
    const core::ToolSpec* spec = context.remote->find(call.tool);
    if (spec && spec->remote) return remote_job(call, *spec->remote, *context.remote, context);
  }
  if (call.tool == "run_terminal_command") return sandboxed(terminal_job(call, context), call, context);
  if (is_file_tool(call.tool)) return file_job(call, context);
  if (call.tool == "search_files") return search_job(call, context);
  for (const char* op : {"edit_buffer", "get_quickfix", "get_diagnostics"}) {
    if (call.tool == op) return lua_job(call, context, op);
  }
  for (const auto& custom : context.config.tools) {
    if (custom.name != call.tool) continue;
    if (custom.fn) return lua_job(call, context, "custom");
    return sandboxed(custom_job(call, custom, context), call, context);
  }
  return core::error("unknown tool `" + call.tool + "`");
}

}  // namespace toolhost::tools
