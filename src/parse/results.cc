#include "parse/results.h"

#include <cstdlib>

#include "parse/text.h"

namespace toolhost::parse {
namespace {

// `key=value` tokens of the info string after the word `result`.
void read_keys(std::string_view info, ResultBlock& block) {
  size_t pos = info.find_first_of(" \t");
  while (pos != std::string_view::npos && pos < info.size()) {
    size_t begin = info.find_first_not_of(" \t", pos);
    if (begin == std::string_view::npos) break;
    size_t end = info.find_first_of(" \t", begin);
    std::string_view token = info.substr(begin, end == std::string_view::npos ? end : end - begin);
    size_t eq = token.find('=');
    if (eq != std::string_view::npos) {
      std::string_view key = token.substr(0, eq);
      std::string value(token.substr(eq + 1));
      if (key == "id")
        block.job_id = value;
      else if (key == "tool")
        block.tool = value;
      else if (key == "status")
        block.status = value;
      else if (key == "part")
        block.part = std::atoi(value.c_str());
    }
    pos = end;
  }
}

}  // namespace

std::optional<ResultBlock> result_block_at(const std::vector<std::string>& lines, int row,
                                           int end) {
  if (row >= end) return std::nullopt;
  auto open = fence_open(lines[row]);
  if (!open || info_word(open->info) != "result") return std::nullopt;
  ResultBlock block;
  block.start = row;
  int close = find_fence_close(lines, row + 1, end, *open);
  block.end = close < 0 ? end : close + 1;
  read_keys(open->info, block);
  return block;
}

std::optional<ResultBlock> result_block_at(const ReadContext& ctx, int row) {
  if (row >= ctx.end) return std::nullopt;
  ctx.touch(row);
  auto block = result_block_at(ctx.lines, row, ctx.end);
  if (block) ctx.touch(block->end - 1);  // its closing fence, or the message's last row
  return block;
}

void attach_result(ToolCall& call, const ResultBlock& block) {
  call.result = ResultRef{block.start, block.end, block.job_id, block.status};
  call.status = core::status_from_string(block.status).value_or(Status::Failed);
  if (call.status == Status::Pending || call.status == Status::Incomplete) {
    call.status = Status::Failed;  // a result block always means the call was handled
  }
}

int attach_results_after_fence(const ReadContext& ctx, int row, std::vector<ToolCall>& calls) {
  size_t next_call = 0;
  while (auto block = result_block_at(ctx, row)) {
    ToolCall* target = nullptr;
    for (auto& call : calls) {
      if (block->part > 0 && call.part == block->part) target = &call;
    }
    // Without a usable part= the blocks are taken in call order.
    while (!target && next_call < calls.size()) {
      if (!calls[next_call].result) target = &calls[next_call];
      ++next_call;
    }
    if (target && !target->result) attach_result(*target, *block);
    row = block->end;
  }
  return row;
}

}  // namespace toolhost::parse
