#include "parse/message_parser.h"

#include "parse/call_id.h"
#include "parse/json_calls.h"
#include "parse/messages.h"
#include "parse/reader.h"
#include "parse/results.h"
#include "parse/sidekick.h"
#include "parse/text.h"
#include "parse/xml_calls.h"

namespace toolhost::parse {
namespace {

void append(MessageCalls& out, Found&& found) {
  for (auto& call : found.calls) out.calls.push_back(std::move(call));
  for (auto& error : found.errors) out.errors.push_back(std::move(error));
}

enum class FenceKind { Text, Xml, Json };

FenceKind fence_kind(std::string_view info, std::string_view content) {
  std::string word = info_word(info);
  if (word == "xml" && is_xml_candidate(content)) return FenceKind::Xml;
  if (word == "json" && is_json_candidate(content)) return FenceKind::Json;
  return FenceKind::Text;
}

// A fence of the XML or JSON dialect at `row`: its calls, or its errors, then the result blocks
// written after it.
Found read_fenced_block(const ReadContext& ctx, int row, FenceKind kind, int close,
                        const std::string& content) {
  const Dialect dialect = kind == FenceKind::Xml ? Dialect::CodeCompanion : Dialect::Json;
  const int block_end = close < 0 ? ctx.end : close + 1;
  Found found;
  if (close < 0) {
    found.next_row = ctx.end;
    if (ctx.open_end) {
      ToolCall call;  // the tool is not known until the fence is complete
      call.params = nlohmann::json::object();
      call.dialect = dialect;
      call.start = row;
      call.end = ctx.end;
      call.status = Status::Incomplete;
      found.calls.push_back(std::move(call));
    } else {
      found.errors.push_back({row, ctx.end, row, "unclosed fence"});
    }
    return found;
  }
  found = kind == FenceKind::Xml ? read_xml_calls(ctx, row, content)
                                 : read_json_calls(ctx, row, content);
  for (auto& error : found.errors) {
    error.start = row;
    error.end = block_end;
  }
  const bool several = found.calls.size() > 1;
  for (size_t i = 0; i < found.calls.size(); ++i) {
    ToolCall& call = found.calls[i];
    call.dialect = dialect;
    call.start = row;
    call.end = block_end;
    call.part = several ? static_cast<int>(i) + 1 : 0;
  }
  found.next_row = attach_results_after_fence(ctx.lines, block_end, ctx.end, found.calls);
  return found;
}

}  // namespace

MessageCalls parse_message(const std::vector<std::string>& lines, int begin, int end,
                           const Options& options, bool open_end) {
  MessageCalls out;
  ReadContext ctx{lines, end, options, open_end};
  int row = begin;
  // llm-sidekick lets a reply start on its role line: `ASSISTANT: **Path:** `a.yaml``.
  if (begin > 0) {
    const std::string& header = lines[begin - 1];
    std::string_view rest = header_rest(header);
    if (!is_blank(rest)) {
      const int column = static_cast<int>(header.size() - rest.size());
      if (auto found = read_sidekick_block(ctx, begin - 1, column)) {
        row = std::max(found->next_row, begin);
        append(out, std::move(*found));
      }
    }
  }
  while (row < end) {
    if (auto found = read_sidekick_block(ctx, row)) {
      row = std::max(found->next_row, row + 1);
      append(out, std::move(*found));
      continue;
    }
    auto open = fence_open(lines[row]);
    if (!open) {
      ++row;
      continue;
    }
    int close = find_fence_close(lines, row + 1, end, *open);
    int content_end = close < 0 ? end : close;
    std::string word = info_word(open->info);
    FenceKind kind = FenceKind::Text;
    std::string content;
    if (word == "xml" || word == "json") {
      content = join_lines(lines, row + 1, content_end);
      kind = fence_kind(open->info, content);
    }
    if (kind == FenceKind::Text) {
      row = close < 0 ? end : close + 1;  // prose, code, or a result block of no call
      continue;
    }
    Found found = read_fenced_block(ctx, row, kind, close, content);
    row = std::max(found.next_row, row + 1);
    append(out, std::move(found));
  }
  out.content_hashes.reserve(out.calls.size());
  for (const auto& call : out.calls) {
    out.content_hashes.push_back(call_content_hash(call.tool, call.params));
  }
  return out;
}

}  // namespace toolhost::parse
