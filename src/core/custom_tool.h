#pragma once
// A tool the user declares in setup({ tools = { name = spec } }) (SPEC 7). Lua sends it as
// JSON: a Lua function (`fn`, an `auto_accept` function) arrives as the marker `true` /
// `"function"`, and Lua keeps the function itself.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace toolhost::core {

// Which errorformat parses a tool's output into its quickfix list (|toolhost-quickfix|): an
// 'errorformat' value, or the name of one of Neovim's `:compiler` plugins; `off`: no list.
struct QuickfixFormat {
  std::string efm;
  std::string compiler;
  bool off = false;
};
// `{ efm = "..." }`, `{ compiler = "cargo" }` or `false`; the error names `at`.
Result<QuickfixFormat> quickfix_format_from_json(const nlohmann::json& value,
                                                 const std::string& at);
nlohmann::json quickfix_format_to_json(const QuickfixFormat& format);

struct CustomParam {
  std::string name;
  bool required = false;
  std::string description;
};

struct CustomTool {
  // How auto-run decides: never, always, or by a Lua function of the params (1 s limit).
  enum class AutoAccept { No, Yes, Function };

  std::string name;
  std::string description;
  // argv templates: `${param}` expands inside one element. `cmds` run one after another and
  // stop at the first failure; `cmd` is one of them.
  std::vector<std::vector<std::string>> cmds;
  bool shell = false;  // `cmd` is joined and run by the shell (the user asked for it)
  bool fn = false;     // a Lua function in Neovim runs the tool
  std::vector<CustomParam> params;
  AutoAccept auto_accept = AutoAccept::No;
  std::optional<uint64_t> timeout_ms;
  std::string cwd;  // relative to the root, confined
  std::vector<std::pair<std::string, std::string>> env;
  // `sandbox = false`: what auto-run starts of it runs outside the kernel sandbox (issue #38).
  bool sandbox = true;
  // `quickfix`: how its output is parsed into a quickfix list; unset: by its command's name.
  std::optional<QuickfixFormat> quickfix;
};

// An argv template element cut at its placeholders. `${name}` (name: letters, digits, `_`,
// `-`) is a placeholder; `$${` is the literal text `${` (a shell's own `${VAR}` in a `shell`
// tool); any other `$` or `${` is literal. One definition for the parser's auto-declared
// params and for the expansion, so the two never disagree on what a placeholder is.
struct TemplatePiece {
  bool placeholder = false;
  std::string text;  // the param's name, or literal text
};
std::vector<TemplatePiece> template_pieces(const std::string& element);

// The tools of `tools` (an object, name -> spec); an error names the tool and the key
// (`tools.lint.cmd: expected a list of strings`).
Result<std::vector<CustomTool>> custom_tools_from_json(const nlohmann::json& tools);
nlohmann::json custom_tool_to_json(const CustomTool& tool);

}  // namespace toolhost::core
