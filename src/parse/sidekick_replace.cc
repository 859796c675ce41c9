#include "parse/sidekick_replace.h"

#include <optional>
#include <vector>

#include "parse/sidekick_block.h"
#include "parse/sidekick_header.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

bool is_blank_text(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

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

// The old text's label and its fence at `row`: `**Search:**`, or `**Find:**` as an older
// llm-sidekick prompt wrote it.
std::optional<ParamFence> old_text_at(const ReadContext& ctx, int row) {
  auto fence = labeled_fence_at(ctx, row, "Search");
  return fence ? fence : labeled_fence_at(ctx, row, "Find");
}

// `**Search:**` + fence, `**Replace:**` + fence, …
Replacements labeled_pairs(const ReadContext& ctx, ParamFence search) {
  Replacements out;
  while (true) {
    if (!search.closed()) return left_open(std::move(out), search);
    auto replace = labeled_fence_at(ctx, skip_blank(ctx, search.close_row + 1), "Replace");
    if (!replace) {
      return failure(search.close_row + 1, search.label_row,
                     "`**" + search.label + ":**` without `**Replace:**`");
    }
    if (!replace->closed()) return left_open(std::move(out), *replace);
    out.search.push_back(search.content);
    out.replace.push_back(replace->content);
    out.end_row = replace->close_row + 1;
    auto next = old_text_at(ctx, skip_blank(ctx, out.end_row));
    if (!next) return out;
    search = std::move(*next);
  }
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return lines;
    start = end + 1;
  }
}

std::string joined(const std::vector<std::string>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out.push_back('\n');
    out += lines[i];
  }
  return out;
}

constexpr size_t kMaxCandidateSplits = 32;

// One fence holding the old text, a blank line, the new text; without a blank line the new
// text is empty (llm-sidekick removes the blank line when a replacement deletes). With more
// blank lines the split depends on the file: each run of blank lines is a candidate (split at
// its last blank line, so an old text that ends with a newline keeps it), and the pair holds
// the candidates as lists for replace_in_file to choose from when it runs.
bool split_one_fence(const ParamFence& fence, Replacements& out) {
  const std::vector<std::string> lines = split_lines(fence.content);
  std::vector<size_t> blanks;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) blanks.push_back(i);
  }
  if (blanks.empty()) {
    out.search.push_back(fence.content);
    out.replace.push_back("");
    return true;
  }
  if (blanks.size() == 1) {
    out.search.push_back(joined(lines, 0, blanks[0]));
    out.replace.push_back(joined(lines, blanks[0] + 1, lines.size()));
    return true;
  }
  std::vector<size_t> splits;  // each run's last blank line
  for (size_t k = 0; k < blanks.size(); ++k) {
    if (k + 1 < blanks.size() && blanks[k + 1] == blanks[k] + 1) continue;  // not the run's last
    splits.push_back(blanks[k]);
  }
  // Each candidate holds a copy of the fence: a fence of thousands of blank-line runs would
  // cost their square in memory (a hostile chat asked for gigabytes), and no real replacement
  // has that many places where it could split.
  if (splits.size() > kMaxCandidateSplits) {
    out.error_row = fence.open_row + 1;
    out.error = "the replacement fence has " + std::to_string(splits.size()) +
                " runs of blank lines, too many to tell its old text from its new (at most " +
                std::to_string(kMaxCandidateSplits) +
                "): use `**Search:**` and `**Replace:**` fences";
    return false;
  }
  nlohmann::json olds = nlohmann::json::array();
  nlohmann::json news = nlohmann::json::array();
  for (size_t split : splits) {
    std::string old_text = joined(lines, 0, split);
    if (is_blank_text(old_text)) continue;
    olds.push_back(std::move(old_text));
    news.push_back(joined(lines, split + 1, lines.size()));
  }
  if (olds.empty()) {
    out.error_row = fence.open_row + 1;
    out.error = "the replacement fence has no old text before its blank lines";
    return false;
  }
  if (olds.size() == 1) {
    out.search.push_back(std::move(olds[0]));
    out.replace.push_back(std::move(news[0]));
    return true;
  }
  out.search.push_back(std::move(olds));
  out.replace.push_back(std::move(news));
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
  if (auto search = old_text_at(ctx, first)) return labeled_pairs(ctx, *search);
  if (replacement_number(ctx.line(first)) == 1 || fence_at(ctx, first)) {
    return one_fence_replacements(ctx, first);
  }
  return std::nullopt;
}

}  // namespace toolhost::parse
