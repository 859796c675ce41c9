#pragma once
// Pure parsing: no I/O, no Neovim. Buffer lines in, messages, tool calls and errors out.
// The pieces: text (fences), messages (role headers), sidekick / xml_calls / json_calls (the
// dialects of SPEC 10), results (result blocks), params (the tool table), message_parser (one
// message), incremental (re-parsing edits), print (JSON and text output).

#include <string>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

ParseResult parse(const std::vector<std::string>& lines, const Options& options);

}  // namespace toolhost::parse
