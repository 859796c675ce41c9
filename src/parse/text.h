#pragma once
// Line-level lexing shared by every dialect: CommonMark fences and small string helpers.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolhost::parse {

// An opening fence line: 3+ backticks or tildes after at most 3 spaces.
struct FenceOpen {
  char ch = '`';
  int length = 0;
  std::string_view info;  // trimmed info string ("bash", "result id=th-1 …")
};

std::optional<FenceOpen> fence_open(std::string_view line);

// A line that can close a fence: the same character, at least `length` of it, no info string.
// Returns the run length, 0 when the line is not a bare fence.
int bare_fence_length(std::string_view line, char ch);
bool closes_fence(std::string_view line, const FenceOpen& open);

// First row in [from, end) that closes `open`, or -1.
int find_fence_close(const std::vector<std::string>& lines, int from, int end,
                     const FenceOpen& open);

// The first word of an info string, lower-cased ("xml", "json", "result").
std::string info_word(std::string_view info);

// The row of byte `offset` of a fence's content (the fence opens at `open_row`).
int row_of_offset(int open_row, std::string_view content, size_t offset);

// row_of_offset() for many offsets in one block: it counts newlines from the start each
// time, which made 100k calls in one block quadratic (minutes).
class RowIndex {
 public:
  RowIndex(int open_row, std::string_view content);
  int row(size_t offset) const;

 private:
  int open_row_;
  std::vector<size_t> newlines_;
};

// Lines [from, to) joined with '\n', without a final newline (SPEC 3: fence content).
std::string join_lines(const std::vector<std::string>& lines, int from, int to);

// The line without up to 3 leading spaces, or nullopt when it is indented more (code, not markup).
std::optional<std::string_view> strip_indent(std::string_view line);

std::string_view trim(std::string_view text);
// How deep JSON text nests its arrays and objects (brackets outside strings), scanned before
// it is parsed: nlohmann's dump(), comparison and destruction recurse, and a model's text must
// not overflow the host's stack. No tool call nests anywhere near kMaxJsonDepth.
constexpr size_t kMaxJsonDepth = 256;
size_t json_depth(std::string_view text);
bool is_blank(std::string_view line);
bool starts_with(std::string_view text, std::string_view prefix);

}  // namespace toolhost::parse
