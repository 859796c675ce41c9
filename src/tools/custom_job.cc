#include "tools/custom_job.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "tools/confine.h"
#include "tools/job_spec.h"
#include "tools/params.h"

namespace toolhost::tools {
namespace {
namespace fs = std::filesystem;

// A placeholder missing from `tool.params` cannot come from the parser (it declares every one);
// a hand-made tool gets the parser's rule: required.
bool is_required(const core::CustomTool& tool, const std::string& name) {
  auto it = std::find_if(tool.params.begin(), tool.params.end(),
                         [&](const core::CustomParam& p) { return p.name == name; });
  return it == tool.params.end() || it->required;
}

core::Result<std::string> param_text(const core::CustomTool& tool, const nlohmann::json& params,
                                     const std::string& name) {
  auto it = params.is_object() ? params.find(name) : params.end();
  if (it == params.end() || it->is_null()) {
    if (is_required(tool, name)) return core::error("parameter `" + name + "` is missing");
    return std::string();
  }
  std::string text = it->is_string()
                         ? it->get<std::string>()
                         : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.find('\0') != std::string::npos) {
    return core::error("parameter `" + name + "` holds a NUL byte");
  }
  return text;
}

enum class Quote { None, Single, Double };

// Follows the quoting of literal shell text, so that a placeholder's reference is quoted for
// where it stands. $'…', comments and quotes nested in $(…) inside "…" are not followed; a
// reference put in the wrong quoting is still only a parameter expansion (at worst split or
// globbed, or shown as its literal text), never script.
void follow_quotes(std::string_view text, Quote& quote, bool& escaped) {
  for (char c : text) {
    if (escaped) {
      escaped = false;
      continue;
    }
    if (quote == Quote::Single) {
      if (c == '\'') quote = Quote::None;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      quote = quote == Quote::Double ? Quote::None : Quote::Double;
    } else if (c == '\'' && quote == Quote::None) {
      quote = Quote::Single;
    }
  }
}

}  // namespace

core::Result<std::vector<std::string>> expand_argv(const std::vector<std::string>& argv_template,
                                                   const core::CustomTool& tool,
                                                   const nlohmann::json& params) {
  std::vector<std::string> argv;
  for (const auto& element : argv_template) {
    std::string arg;
    for (const auto& piece : core::template_pieces(element)) {
      if (!piece.placeholder) {
        arg += piece.text;
        continue;
      }
      auto value = param_text(tool, params, piece.text);
      if (!value) return core::error(value.error());
      arg += *value;
    }
    argv.push_back(std::move(arg));
  }
  return argv;
}

core::Result<std::vector<std::string>> shell_argv(const std::string& shell,
                                                  const std::vector<std::string>& argv_template,
                                                  const core::CustomTool& tool,
                                                  const nlohmann::json& params) {
  std::vector<std::string> names;  // positional parameter N is names[N - 1]
  std::string script;
  Quote quote = Quote::None;
  bool escaped = false;
  for (size_t i = 0; i < argv_template.size(); ++i) {
    if (i > 0) {
      script += ' ';
      follow_quotes(" ", quote, escaped);
    }
    for (const auto& piece : core::template_pieces(argv_template[i])) {
      if (!piece.placeholder) {
        script += piece.text;
        follow_quotes(piece.text, quote, escaped);
        continue;
      }
      auto it = std::find(names.begin(), names.end(), piece.text);
      if (it == names.end()) it = names.insert(names.end(), piece.text);
      const std::string ref = "${" + std::to_string(it - names.begin() + 1) + "}";
      // A `\` right before a placeholder would escape the reference's first character: a
      // backslash-newline (a line continuation, removed by the shell) takes it instead.
      if (escaped) script += '\n';
      escaped = false;
      switch (quote) {
        case Quote::None: script += '"' + ref + '"'; break;
        case Quote::Double: script += ref; break;
        case Quote::Single: script += "'\"" + ref + "\"'"; break;
      }
    }
  }
  std::vector<std::string> argv{shell, "-c", script, "toolhost"};  // "toolhost" is $0
  for (const auto& name : names) {
    auto value = param_text(tool, params, name);
    if (!value) return core::error(value.error());
    argv.push_back(std::move(*value));
  }
  return argv;
}

core::Result<jobs::JobSpec> custom_job(const core::ToolCall& call, const core::CustomTool& tool,
                                       const RunContext& context) {
  if (tool.cmds.empty()) return core::error("custom tool `" + tool.name + "` has no command");
  // Every required param, used in a template or not (the parser checks it first).
  for (const auto& param : tool.params) {
    if (!param.required) continue;
    auto value = param_text(tool, call.params, param.name);
    if (!value) return core::error(value.error());
  }
  jobs::JobSpec spec = base_spec(call, context);
  // The tool's own timeout, unless the model asked for one (base_spec clamped it).
  if (tool.timeout_ms && !call.params.contains("timeout_ms")) spec.timeout_ms = *tool.timeout_ms;
  if (!tool.cwd.empty()) {
    if (!resolves_inside(context.root, tool.cwd)) {
      return core::error("cwd `" + tool.cwd + "` is outside the project root");
    }
    spec.cwd = fs::weakly_canonical(fs::path(context.root) / tool.cwd).string();
  }
  spec.env = tool.env;
  if (tool.shell) {
    auto argv = shell_argv(context.config.shell, tool.cmds.front(), tool, call.params);
    if (!argv) return core::error(argv.error());
    spec.argv = std::move(*argv);
    return spec;
  }
  std::vector<std::vector<std::string>> argvs;
  for (const auto& argv_template : tool.cmds) {
    auto argv = expand_argv(argv_template, tool, call.params);
    if (!argv) return core::error(argv.error());
    argvs.push_back(std::move(*argv));
  }
  if (argvs.size() == 1) {
    spec.argv = std::move(argvs.front());
  } else {
    spec.steps = std::move(argvs);  // one job; the engine runs them in sequence
  }
  return spec;
}

}  // namespace toolhost::tools
