#include "cli/parse_command.h"

#include <ostream>

#include "cli/transcript.h"
#include "parse/parser.h"
#include "parse/print.h"
#include "session/config.h"
#include "tools/tool_table.h"

namespace toolhost::cli {

int run_parse_command(const ParseCommand& command, std::ostream& out, std::ostream& err) {
  std::string error;
  auto config_json = read_config(command.config_file, &error);
  auto lines = config_json ? read_lines(command.file, &error) : std::nullopt;
  if (!lines) {
    err << "toolhost parse: " << error << "\n";
    return 2;
  }
  parse::Options options;
  options.tools = tools::builtin_tool_table();
  try {
    options.roles = session::config_from_json(*config_json).roles;
  } catch (const nlohmann::json::exception& e) {
    err << "toolhost parse: " << command.config_file << ": " << e.what() << "\n";
    return 2;
  }
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
