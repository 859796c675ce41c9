#include "parse/sidekick_replace.h"

#include "parse/sidekick_block.h"
#include "parse/sidekick_header.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

Replacements failure(int end_row, int error_row, std::string message) {
  Replacements out;
  out.end_row = end_row;
  out.error_row = error_row;
  out.error = std::move(message);
  return out;
}

Replacements left_open(Replacements so_far, const ParamFence& fence) {
  so_far.unclosed_row = fence.open_row;
  return so_far;
}

// `**Search:**` + fence, `**Replace:**` + fence, …
Replacements labeled_pairs(const ReadContext& ctx, ParamFence search) {
  Replacements out;
  while (true) {
    if (!search.closed()) return left_open(std::move(out), search);
    auto replace = labeled_fence_at(ctx, skip_blank(ctx, search.close_row + 1), "Replace");
    if (!replace) {
      return failure(search.close_row + 1, search.label_row,
                     "`**Search:**` without `**Replace:**`");
    }
    if (!replace->closed()) return left_open(std::move(out), *replace);
    out.search.push_back(search.content);
    out.replace.push_back(replace->content);
    out.end_row = replace->close_row + 1;
    auto next = labeled_fence_at(ctx, skip_blank(ctx, out.end_row), "Search");
    if (!next) return out;
    search = std::move(*next);
  }
}

// One fence holding the old text, a blank line, the new text; without a blank line the new
// text is empty (llm-sidekick removes the blank line when a replacement deletes). More blank
// lines make the split a guess, and a guess at an edit is not made.
bool split_one_fence(const ParamFence& fence, Replacements& out) {
  const std::string& text = fence.content;
  std::vector<size_t> blank_starts;  // byte offsets of blank lines
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (is_blank(std::string_view(text).substr(start, end - start))) blank_starts.push_back(start);
    start = end + 1;
  }
  if (blank_starts.empty()) {
    out.search.push_back(text);
    out.replace.push_back("");
    return true;
  }
  if (blank_starts.size() > 1) {
    out.error_row = fence.open_row + 1;
    out.error = "the replacement fence has " + std::to_string(blank_starts.size()) +
                " blank lines, so where the old text ends would be a guess; use "
                "`**Search:**` and `**Replace:**` fences";
    return false;
  }
  size_t blank = blank_starts.front();
  size_t after = text.find('\n', blank);
  out.search.push_back(blank == 0 ? std::string() : text.substr(0, blank - 1));
  out.replace.push_back(after == std::string::npos ? std::string() : text.substr(after + 1));
  return true;
}

// One fence, or `**Replacement N:**` + one fence repeated.
Replacements one_fence_replacements(const ReadContext& ctx, int row) {
  Replacements out;
  int number = replacement_number(ctx.line(row));
  int expected = 1;
  while (true) {
    auto fence = fence_at(ctx, skip_blank(ctx, number > 0 ? row + 1 : row));
    if (!fence)
      return failure(row + 1, row,
                     "`**Replacement " + std::to_string(number) + ":**` without its fence");
    if (!fence->closed()) return left_open(std::move(out), *fence);
    if (!split_one_fence(*fence, out)) {
      out.end_row = fence->close_row + 1;
      return out;
    }
    out.end_row = fence->close_row + 1;
    if (number == 0) return out;
    row = skip_blank(ctx, out.end_row);
    if (row >= ctx.end) return out;
    int next = replacement_number(ctx.line(row));
    if (next == 0) return out;
    if (next != ++expected) {
      return failure(row + 1, row,
                     "`**Replacement " + std::to_string(next) + ":**` follows replacement " +
                         std::to_string(expected - 1));
    }
    number = next;
  }
}

}  // namespace

std::optional<Replacements> read_replacements(const ReadContext& ctx, int row) {
  if (row >= ctx.end) return std::nullopt;
  // Two fences right under the header: old, new.
  if (auto old_text = fence_at(ctx, row)) {
    if (!old_text->closed()) return left_open({}, *old_text);
    if (auto new_text = fence_at(ctx, old_text->close_row + 1)) {
      if (!new_text->closed()) return left_open({}, *new_text);
      Replacements out;
      out.search.push_back(old_text->content);
      out.replace.push_back(new_text->content);
      out.end_row = new_text->close_row + 1;
      return out;
    }
  }
  int first = skip_blank(ctx, row);
  if (first >= ctx.end) return std::nullopt;
  if (auto search = labeled_fence_at(ctx, first, "Search")) return labeled_pairs(ctx, *search);
  if (replacement_number(ctx.line(first)) == 1 || fence_at(ctx, first)) {
    return one_fence_replacements(ctx, first);
  }
  return std::nullopt;
}

}  // namespace toolhost::parse
