#include "parse/sidekick_block.h"

#include <variant>

#include "parse/params.h"
#include "parse/remote_tools.h"
#include "parse/results.h"
#include "parse/sidekick_header.h"
#include "parse/text.h"

namespace toolhost::parse {

int skip_blank(const ReadContext& ctx, int row) {
  return row < ctx.end && is_blank(ctx.line(row)) ? row + 1 : row;
}

std::optional<ParamFence> fence_at(const ReadContext& ctx, int row) {
  if (row >= ctx.end) return std::nullopt;
  auto open = fence_open(ctx.line(row));
  if (!open || info_word(open->info) == "result") return std::nullopt;
  ParamFence fence;
  fence.open_row = row;
  fence.close_row = find_fence_close(ctx.lines, row + 1, ctx.end, *open);
  ctx.touch(fence.closed() ? fence.close_row : ctx.end - 1);
  fence.content = join_lines(ctx.lines, row + 1, fence.closed() ? fence.close_row : ctx.end);
  return fence;
}

std::optional<ParamFence> labeled_fence_at(const ReadContext& ctx, int row,
                                           std::string_view label) {
  if (row >= ctx.end || !is_label(ctx.line(row), label)) return std::nullopt;
  auto fence = fence_at(ctx, skip_blank(ctx, row + 1));
  if (!fence) return std::nullopt;
  fence->label = std::string(label);
  fence->label_row = row;
  return fence;
}

Purpose read_purpose(const ReadContext& ctx, int row) {
  Purpose purpose{"", row};
  int r = skip_blank(ctx, row);
  while (r < ctx.end) {
    auto body = strip_indent(ctx.line(r));
    if (!body || body->empty() || body->front() != '>') break;
    std::string_view text = body->substr(1);
    if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    // Trailing blanks are layout, not purpose (editors and CRLF files leave them).
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
      text.remove_suffix(1);
    }
    if (!purpose.text.empty()) purpose.text.push_back('\n');
    purpose.text += text;
    purpose.end_row = ++r;
  }
  return purpose;
}

Found unclosed(const ReadContext& ctx, BlockStart at, int fence_row, const std::string& tool,
               nlohmann::json params) {
  if (!ctx.open_end) return block_error(at, ctx.end, fence_row, "unclosed fence");
  Found found;
  found.next_row = ctx.end;
  ToolCall call;
  const ToolSpec* spec = find_tool(ctx.options.tools, tool);
  call.tool = spec ? spec->name : tool;
  call.params = std::move(params);
  call.start = at.row;
  call.column = at.column;
  call.end = ctx.end;
  call.status = Status::Incomplete;
  found.calls.push_back(std::move(call));
  return found;
}

Found block_error(BlockStart at, int end, int line, std::string message) {
  Found found;
  found.next_row = end;
  found.errors.push_back({at.row, end, line, std::move(message)});
  return found;
}

Found make_call(const ReadContext& ctx, const std::string& tool, nlohmann::json params,
                BlockStart at, int end) {
  auto resolved = resolve_call(ctx.options.tools, tool, std::move(params));
  if (auto* error = std::get_if<std::string>(&resolved)) {
    return block_error(at, end, at.row, *error);
  }
  Found found;
  found.next_row = end;
  auto& call_parts = std::get<ResolvedCall>(resolved);
  ToolCall call;
  call.tool = std::move(call_parts.tool);
  call.params = std::move(call_parts.params);
  call.start = at.row;
  call.column = at.column;
  call.end = end;
  if (auto result = result_block_at(ctx, end)) {
    attach_result(call, *result);
    found.next_row = result->end;
  }
  found.calls.push_back(std::move(call));
  return found;
}

}  // namespace toolhost::parse
