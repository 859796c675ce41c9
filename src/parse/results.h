#pragma once
// Result blocks (SPEC 10.4): ````result id=th-7 tool=… status=… part=N, written right after a
// finished call. They are how a re-read buffer knows which calls already ran.

#include <optional>
#include <string>
#include <vector>

#include "parse/reader.h"
#include "parse/types.h"

namespace toolhost::parse {

struct ResultBlock {
  int start = 0;
  int end = 0;
  std::string job_id;
  std::string tool;
  std::string status;
  int part = 0;
};

// The result block that opens at `row`, ending at its closing fence (or at `end` when unclosed).
std::optional<ResultBlock> result_block_at(const std::vector<std::string>& lines, int row, int end);
// The same within a message being read (up to ctx.end), noting the rows it read.
std::optional<ResultBlock> result_block_at(const ReadContext& ctx, int row);

// Marks the call finished with the block's status (`failed` when the status is unknown).
void attach_result(ToolCall& call, const ResultBlock& block);

// Fenced dialects (XML, JSON) write one result block per call after the fence, in call order:
// attaches the run of result blocks that starts at `row` to `calls` (matched by part) and
// returns the row after the last one.
int attach_results_after_fence(const ReadContext& ctx, int row, std::vector<ToolCall>& calls);

}  // namespace toolhost::parse
