#include "parse/text.h"

#include <algorithm>
#include <cctype>

namespace toolhost::parse {

std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

bool is_blank(std::string_view line) {
  return trim(line).empty();
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::optional<std::string_view> strip_indent(std::string_view line) {
  size_t spaces = 0;
  while (spaces < line.size() && spaces < 4 && line[spaces] == ' ') ++spaces;
  if (spaces > 3) return std::nullopt;
  return line.substr(spaces);
}

namespace {

size_t run_length(std::string_view text, char ch) {
  size_t n = 0;
  while (n < text.size() && text[n] == ch) ++n;
  return n;
}

}  // namespace

std::optional<FenceOpen> fence_open(std::string_view line) {
  auto body = strip_indent(line);
  if (!body || body->empty() || (body->front() != '`' && body->front() != '~')) return std::nullopt;
  char ch = body->front();
  size_t length = run_length(*body, ch);
  if (length < 3) return std::nullopt;
  std::string_view info = trim(body->substr(length));
  // CommonMark: a backtick fence's info string may not hold a backtick (it would be inline code).
  if (ch == '`' && info.find('`') != std::string_view::npos) return std::nullopt;
  return FenceOpen{ch, static_cast<int>(length), info};
}

int bare_fence_length(std::string_view line, char ch) {
  auto body = strip_indent(line);
  if (!body) return 0;
  size_t length = run_length(*body, ch);
  if (length < 3 || !trim(body->substr(length)).empty()) return 0;
  return static_cast<int>(length);
}

bool closes_fence(std::string_view line, const FenceOpen& open) {
  return bare_fence_length(line, open.ch) >= open.length;
}

int find_fence_close(const std::vector<std::string>& lines, int from, int end,
                     const FenceOpen& open) {
  for (int row = from; row < end; ++row) {
    if (closes_fence(lines[row], open)) return row;
  }
  return -1;
}

std::string info_word(std::string_view info) {
  std::string word;
  for (char c : info) {
    if (c == ' ' || c == '\t' || c == '{') break;
    word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return word;
}

int row_of_offset(int open_row, std::string_view content, size_t offset) {
  offset = std::min(offset, content.size());
  return open_row + 1 +
         static_cast<int>(std::count(content.begin(), content.begin() + offset, '\n'));
}

RowIndex::RowIndex(int open_row, std::string_view content) : open_row_(open_row) {
  for (size_t at = content.find('\n'); at != std::string_view::npos;
       at = content.find('\n', at + 1)) {
    newlines_.push_back(at);
  }
}

int RowIndex::row(size_t offset) const {
  auto before = std::lower_bound(newlines_.begin(), newlines_.end(), offset);
  return open_row_ + 1 + static_cast<int>(before - newlines_.begin());
}

std::string join_lines(const std::vector<std::string>& lines, int from, int to) {
  std::string out;
  for (int row = from; row < to; ++row) {
    if (row > from) out.push_back('\n');
    out += lines[row];
  }
  return out;
}

size_t json_depth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace toolhost::parse
