#include "cli/tools_command.h"

#include <ostream>

#include "cli/transcript.h"
#include "core/tool_schema.h"

namespace toolhost::cli {

int run_tools_command(const ToolsCommand& command, std::ostream& out, std::ostream& err) {
  auto config = read_config(command.config_file);
  auto tools = config ? core::tools_json(*config, command.format) : core::error(config.error());
  if (!tools) {
    err << "toolhost tools: " << tools.error() << "\n";
    return 2;
  }
  out << tools->dump(2) << "\n";
  return 0;
}

}  // namespace toolhost::cli
