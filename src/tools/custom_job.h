#pragma once
// A custom tool's job (SPEC 7): `cmd` argv templates, `cmds` sequences, `shell = true`.
//
// Template params never reach a shell: `${name}` is replaced inside its argv element, which
// stays one argv element whatever the value holds (`;`, `$(…)`, quotes, newlines, globs), and
// the argv is exec'd as it is. A `shell = true` tool's template is the user's own shell text;
// even there a value is passed as a positional parameter ("${1}"), never as script text.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/custom_tool.h"
#include "core/result.h"
#include "core/tool_call.h"
#include "jobs/types.h"
#include "tools/runner.h"

namespace toolhost::tools {

core::Result<jobs::JobSpec> custom_job(const core::ToolCall& call, const core::CustomTool& tool,
                                       const RunContext& context);

// One argv template with the call's params: a string value as it is, a number or boolean as
// its JSON text, a list or object as compact JSON; an absent optional param as "" (the
// element stays, possibly empty); `$${` gives a literal `${`. A missing required param, or a
// value holding a NUL byte (exec would cut the element there), is an error naming it.
core::Result<std::vector<std::string>> expand_argv(const std::vector<std::string>& argv_template,
                                                   const core::CustomTool& tool,
                                                   const nlohmann::json& params);

// `shell = true`: {shell, "-c", SCRIPT, "toolhost", value1, value2, …}. SCRIPT is the template
// joined with spaces, each distinct param numbered by first use and each `${name}` replaced by
// a reference to its positional parameter, quoted for where it stands: "${1}" outside quotes,
// ${1} inside double quotes, '"${1}"' inside single quotes. The shell expands a parameter but
// never parses its value as script.
core::Result<std::vector<std::string>> shell_argv(const std::string& shell,
                                                  const std::vector<std::string>& argv_template,
                                                  const core::CustomTool& tool,
                                                  const nlohmann::json& params);

}  // namespace toolhost::tools
