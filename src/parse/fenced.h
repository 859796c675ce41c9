#pragma once
// The fenced dialects (SPEC 10.2 XML, 10.3 JSON): which fences are candidates, and reading the
// calls of a closed candidate fence. Results after the fence are the message parser's job.

#include <string>
#include <string_view>

#include "parse/reader.h"

namespace toolhost::parse {

// Lexical candidacy (SPEC 3.1), decided before any full parse: a candidate that then fails to
// parse is an error, any other xml/json fence is ordinary text.
bool is_xml_candidate(std::string_view content);
bool is_json_candidate(std::string_view content);

// `content` is the text between the fence lines; `open_row` the opening fence's row. Calls come
// with tool and params only.
Found read_xml_calls(const ReadContext& ctx, int open_row, const std::string& content);
Found read_json_calls(const ReadContext& ctx, int open_row, const std::string& content);

// The row of byte `offset` of a fence's content.
int row_of_offset(int open_row, std::string_view content, size_t offset);

}  // namespace toolhost::parse
