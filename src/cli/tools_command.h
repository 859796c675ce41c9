#pragma once
// `toolhost tools [--format openai|anthropic|mcp] [--config FILE.json]`: prints every tool
// (built-in and custom) with its JSON Schema, as `require("toolhost").tools()` returns them.

#include <iosfwd>
#include <string>

namespace toolhost::cli {

struct ToolsCommand {
  std::string format = "openai";
  std::string config_file;  // the options of setup() as JSON (custom tools)
};

// 0, or 2 when the config cannot be read or the format is unknown.
int run_tools_command(const ToolsCommand& command, std::ostream& out, std::ostream& err);

}  // namespace toolhost::cli
