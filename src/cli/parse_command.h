#pragma once
// `toolhost parse FILE [--json] [--config FILE.json]`: the messages, calls and errors the
// parser finds in a transcript, the way to debug one (SPEC 3.2).

#include <iosfwd>
#include <string>

namespace toolhost::cli {

struct ParseCommand {
  std::string file;
  std::string config_file;  // the options of setup() as JSON; only `roles` matters here
  bool json = false;
};

// Exit status: 0 parsed cleanly, 1 the transcript has malformed blocks, 2 the file or the
// config could not be read. Results go to `out`, problems with the input to `err`.
int run_parse_command(const ParseCommand& command, std::ostream& out, std::ostream& err);

}  // namespace toolhost::cli
