#include "cli/tools_command.h"

#include <ostream>

#include "cli/transcript.h"
#include "core/tool_schema.h"

namespace toolhost::cli {

int run_tools_command(const ToolsCommand& command, std::ostream& out, std::ostream& err) {
  auto format = core::schema_format(command.format);
  if (!format) {
    err << "toolhost tools: unknown format `" << command.format << "` (openai, anthropic or mcp)\n";
    return 2;
  }
  auto config = read_config(command.config_file);
  if (!config) {
    err << "toolhost tools: " << config.error() << "\n";
    return 2;
  }
  out << core::tools_json(core::tool_table_for(*config), *format).dump(2) << "\n";
  return 0;
}

}  // namespace toolhost::cli
