#pragma once
// The parts of an llm-sidekick block below its header (SPEC 10.1): parameter fences, labelled
// fences (`**Search:**`), `> purpose` lines, and the call or error a block becomes.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "parse/reader.h"

namespace toolhost::parse {

struct ParamFence {
  std::string label;  // "Search", "Find", "Replace", "Content" or empty
  int label_row = -1;
  int open_row = 0;
  int close_row = -1;  // -1: unclosed, runs to the message's end
  std::string content;
  bool closed() const { return close_row >= 0; }
};

// At most one blank line may separate the parts of a block (SPEC 10).
int skip_blank(const ReadContext& ctx, int row);

// A parameter fence opening at `row`; a `result` fence never is one.
std::optional<ParamFence> fence_at(const ReadContext& ctx, int row);

// A label line (`**Search:**`) and the fence under it.
std::optional<ParamFence> labeled_fence_at(const ReadContext& ctx, int row, std::string_view label);

struct Purpose {
  std::string text;
  int end_row;  // after the last `>` line; the row it started from when there is none
};

// The `> purpose` lines from `row` on (after at most one blank line).
Purpose read_purpose(const ReadContext& ctx, int row);

// Where a block starts: its header's row, and the byte on that row where the header starts
// (after `ASSISTANT: `, or after another header on the same line).
struct BlockStart {
  int row = 0;
  int column = 0;
};

// A fence left open: the reply may still be streaming (incomplete), else it is an error.
Found unclosed(const ReadContext& ctx, BlockStart at, int fence_row, const std::string& tool,
               nlohmann::json params);

// An error over rows [at.row, end) pointing at `line`.
Found block_error(BlockStart at, int end, int line, std::string message);

// The call (or the error resolving it names), with the result block that follows it.
Found make_call(const ReadContext& ctx, const std::string& tool, nlohmann::json params,
                BlockStart at, int end);

}  // namespace toolhost::parse
