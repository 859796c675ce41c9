#pragma once
// The tool calls and errors of one assistant message, in every dialect (SPEC 10).

#include <cstdint>
#include <string>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

// One turn of the message reader: it started at `row`, read no row past `reach` (nor before
// `row`) and went on at `next`; `calls` and `errors` count what the message held after it.
// A turn depends only on rows [row, reach], the message's end and `open_end`.
struct ParseStep {
  int row = 0;
  int reach = 0;
  int next = 0;
  int calls = 0;
  int errors = 0;
};

// An earlier parse of the same message, before rows [edit_first, old_edit_end) became rows
// [edit_first, new_edit_end): its turns that read no edited row are taken as they were (those
// below the edit moved by new_edit_end - old_edit_end), so an edit costs the turns it touches.
struct MessageReuse {
  const std::vector<ParseStep>* steps = nullptr;  // the earlier turns, in their rows
  int edit_first = 0;
  int old_edit_end = 0;
  int new_edit_end = 0;
};

struct MessageCalls {
  std::vector<ToolCall> calls;           // ids not set yet: they depend on the calls above
  std::vector<uint64_t> content_hashes;  // call_content_hash of each call, for the ids
  std::vector<ParseError> errors;
  std::vector<ParseStep> steps;  // every turn, in the new rows
  // With a reuse: calls and errors are the fresh ones alone. The message's first `kept_calls`
  // calls and `kept_errors` errors are the earlier parse's first ones, and its last
  // `tail_calls` and `tail_errors` the earlier parse's last ones, rows moved with the edit.
  int kept_calls = 0;
  int kept_errors = 0;
  int tail_calls = 0;
  int tail_errors = 0;
};

// Rows [begin, end) of a message (begin is the row after its header; a reply that starts on a
// `NAME:` header row, llm-sidekick style, is read from there). `open_end`: the message
// ends the buffer and may still be streaming, so a fence open at its end is incomplete.
// `reuse`: an earlier parse of this message with the same `begin`, `open_end` and options.
MessageCalls parse_message(const std::vector<std::string>& lines, int begin, int end,
                           const Options& options, bool open_end,
                           const MessageReuse* reuse = nullptr);

}  // namespace toolhost::parse
