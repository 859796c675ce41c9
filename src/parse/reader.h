#pragma once
// What every dialect reader gets and gives back for one block of an assistant message.

#include <string>
#include <vector>

#include "parse/types.h"

namespace toolhost::parse {

struct ReadContext {
  const std::vector<std::string>& lines;
  int end;  // the message's end row: no block reaches past it
  const Options& options;
  bool open_end;  // the message ends the buffer and may still be streaming in
  // The last row read so far (at least): what an incremental parse may reuse depends on it.
  // Every read of `lines` goes through line() or is noted with touch().
  mutable int reach = -1;

  void touch(int row) const {
    if (row > reach) reach = row;
  }
  const std::string& line(int row) const {
    touch(row);
    return lines[row];
  }
};

// Calls come without id, message index and part numbers; the message parser sets them.
struct Found {
  std::vector<ToolCall> calls;
  std::vector<ParseError> errors;
  int next_row = 0;  // the first row after the block (and its result blocks)
};

}  // namespace toolhost::parse
