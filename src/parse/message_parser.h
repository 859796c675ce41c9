#pragma once
// The tool calls and errors of one assistant message, in every dialect (SPEC 10).

#include <cstdint>
#include <string>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

struct MessageCalls {
  std::vector<ToolCall> calls;           // ids not set yet: they depend on the calls above
  std::vector<uint64_t> content_hashes;  // call_content_hash of each call, for the ids
  std::vector<ParseError> errors;
};

// Rows [begin, end) of a message (begin is the row after its header; a reply that starts on a
// `NAME:` header row, llm-sidekick style, is read from there). `open_end`: the message
// ends the buffer and may still be streaming, so a fence open at its end is incomplete.
MessageCalls parse_message(const std::vector<std::string>& lines, int begin, int end,
                           const Options& options, bool open_end);

}  // namespace toolhost::parse
