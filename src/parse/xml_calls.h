#pragma once
// CodeCompanion's XML fences (SPEC 10.2).

#include <string>
#include <string_view>

#include "parse/reader.h"

namespace toolhost::parse {

// Lexical candidacy (SPEC 3.1): the first non-blank text after an optional `<?xml …?>`
// declaration starts with `<tool` (`<tools` too).
// A candidate that then fails to parse is an error; any other xml fence is ordinary text.
bool is_xml_candidate(std::string_view content);

// The calls of a closed candidate fence: `content` is the text between the fence lines and
// `open_row` the opening fence's row. Calls come with tool and params only.
Found read_xml_calls(const ReadContext& ctx, int open_row, const std::string& content);

}  // namespace toolhost::parse
