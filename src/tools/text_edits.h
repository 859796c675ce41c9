#pragma once
// The edits of the file tools on a file's text (SPEC 7), the same for a file on disk and for a
// buffer that has it loaded: replacing exact texts, inserting lines.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace toolhost::tools {

// `text` with every pair applied: each search text must occur exactly once (in the text as the
// earlier pairs left it), else nothing changes and the error names the pair. Search and
// replace texts written with "\n" match a CRLF file's "\r\n".
// A pair whose search and replace are lists of the same length holds candidates (an
// llm-sidekick fence that splits at several blank-line runs, sidekick_replace.h): the
// candidate whose search text occurs exactly once is applied; none or several is an error that
// names each candidate by the last line of its search text.
core::Result<std::string> replace_in_text(const std::string& text, const nlohmann::json& search,
                                          const nlohmann::json& replace);

// `text` with the lines of `content` inserted after line `after` (0: at the top). `content` is
// a fence's text (no final newline; "" is one empty line); a CRLF file gets CRLF lines, and the
// file keeps whether it ends with a newline. A line past the end is an error.
core::Result<std::string> insert_in_text(const std::string& text, uint64_t after,
                                         const std::string& content);

// The one-line results of the edits, the same for a file on disk and a loaded buffer: "Wrote
// 3 lines to a.c", "Replaced 2 block(s) in a.c", "Inserted 3 line(s) into a.c after line 12".
std::string wrote_summary(const std::string& path, const std::string& content);
std::string replaced_summary(const std::string& path, size_t pairs);
std::string inserted_summary(const std::string& path, uint64_t after, const std::string& content);

}  // namespace toolhost::tools
