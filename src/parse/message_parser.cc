#include "parse/message_parser.h"

#include <algorithm>

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
  found.next_row = attach_results_after_fence(ctx, block_end, found.calls);
  return found;
}

}  // namespace

MessageCalls parse_message(const std::vector<std::string>& lines, int begin, int end,
                           const Options& options, bool open_end, const MessageReuse* reuse) {
  MessageCalls out;
  ReadContext ctx{lines, end, options, open_end};
  const std::vector<ParseStep>* old = reuse ? reuse->steps : nullptr;
  const int shift = reuse ? reuse->new_edit_end - reuse->old_edit_end : 0;
  // A turn that read the message's last row may have stopped there because the message ends:
  // it depends on where it ends, which an edit at its end moves.
  auto turn_done = [&](int row, int next) {
    const int reach = std::max(ctx.reach, row);
    out.steps.push_back({row, reach >= end - 1 ? end : reach, next,
                         out.kept_calls + static_cast<int>(out.calls.size()),
                         out.kept_errors + static_cast<int>(out.errors.size())});
  };

  int row = begin;
  // The earlier turns that read nothing at or past the edit stand.
  size_t kept = 0;
  if (old) {
    while (kept < old->size() && (*old)[kept].reach < reuse->edit_first &&
           (*old)[kept].next <= reuse->edit_first) {
      ++kept;
    }
    if (kept > 0) {
      out.steps.assign(old->begin(), old->begin() + static_cast<long>(kept));
      out.kept_calls = out.steps.back().calls;
      out.kept_errors = out.steps.back().errors;
      row = out.steps.back().next;
    }
  }
  // llm-sidekick lets a reply start on its role line: `ASSISTANT: **Path:** `a.yaml``. It is
  // the first turn (row begin - 1) whatever it finds.
  if (begin > 0 && kept == 0) {
    ctx.reach = -1;
    const std::string& header = ctx.line(begin - 1);
    std::string_view rest = header_rest(header);
    int next = begin;
    if (!is_blank(rest)) {
      const int column = static_cast<int>(header.size() - rest.size());
      if (auto found = read_sidekick_block(ctx, begin - 1, column)) {
        next = std::max(found->next_row, begin);
        append(out, std::move(*found));
      }
    }
    turn_done(begin - 1, next);
    row = next;
  }
  while (row < end) {
    // Below the edit, a turn that starts where one started before starts the same turns as
    // then: each reads only rows from its own on, and those did not change.
    if (old && row >= reuse->new_edit_end) {
      const int old_row = row - shift;
      auto at = std::lower_bound(old->begin() + static_cast<long>(kept), old->end(), old_row,
                                 [](const ParseStep& s, int r) { return s.row < r; });
      if (at != old->end() && at->row == old_row && old_row >= reuse->old_edit_end) {
        const int calls_before = at == old->begin() ? 0 : (at - 1)->calls;
        const int errors_before = at == old->begin() ? 0 : (at - 1)->errors;
        out.tail_calls = old->back().calls - calls_before;
        out.tail_errors = old->back().errors - errors_before;
        const int calls_now = out.kept_calls + static_cast<int>(out.calls.size());
        const int errors_now = out.kept_errors + static_cast<int>(out.errors.size());
        for (auto it = at; it != old->end(); ++it) {
          out.steps.push_back({it->row + shift, it->reach + shift, it->next + shift,
                               it->calls - calls_before + calls_now,
                               it->errors - errors_before + errors_now});
        }
        break;
      }
    }
    ctx.reach = -1;
    const int start = row;
    if (auto found = read_sidekick_block(ctx, row)) {
      row = std::max(found->next_row, row + 1);
      append(out, std::move(*found));
      turn_done(start, row);
      continue;
    }
    auto open = fence_open(ctx.line(row));
    if (!open) {
      ++row;
      turn_done(start, row);
      continue;
    }
    int close = find_fence_close(lines, row + 1, end, *open);
    ctx.touch(close < 0 ? end - 1 : close);
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
      turn_done(start, row);
      continue;
    }
    Found found = read_fenced_block(ctx, row, kind, close, content);
    row = std::max(found.next_row, row + 1);
    append(out, std::move(found));
    turn_done(start, row);
  }
  out.content_hashes.reserve(out.calls.size());
  for (const auto& call : out.calls) {
    out.content_hashes.push_back(call_content_hash(call.tool, call.params));
  }
  return out;
}

}  // namespace toolhost::parse
