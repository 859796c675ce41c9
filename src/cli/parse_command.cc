#include "cli/parse_command.h"

#include <ostream>

#include "cli/transcript.h"
#include "core/tool_table.h"
#include "parse/parser.h"
#include "parse/print.h"

namespace toolhost::cli {

int run_parse_command(const ParseCommand& command, std::ostream& out, std::ostream& err) {
  auto config = read_config(command.config_file);
  auto lines = config ? read_lines(command.file) : core::error(config.error());
  if (!lines) {
    err << "toolhost parse: " << lines.error() << "\n";
    return 2;
  }
  parse::Options options;
  options.tools = core::tool_table_for(*config);
  options.roles = config->roles;
  options.complete = true;  // a file is not streaming: an unclosed fence is an error
  parse::ParseResult result = parse::parse(*lines, options);
  if (command.json) {
    out << parse::to_json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
  } else {
    out << parse::to_text(result);
  }
  return result.errors.empty() ? 0 : 1;
}

}  // namespace toolhost::cli
