#include "parse/messages.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "parse/text.h"

namespace toolhost::parse {
namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<Role> role_named(std::string_view name, const RoleNames& roles) {
  if (name.empty()) return std::nullopt;
  if (listed(roles.user, name)) return Role::User;
  if (listed(roles.assistant, name)) return Role::Assistant;
  if (listed(roles.system, name)) return Role::System;
  return std::nullopt;
}

// llm-sidekick settings share the `NAME:` shape but never start a message.
bool is_setting(std::string_view name) {
  return name == "MODEL" || name == "MAX_TOKENS" || name == "STREAM" || name == "TEMPERATURE";
}

// Names are short; looking for the colon further would make every long line expensive.
constexpr size_t kLongestName = 64;

std::string_view without_trailing_blanks(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// The last UTF-8 character of `text` (empty for an empty text).
std::string_view last_char(std::string_view text) {
  size_t start = text.size();
  while (start > 0) {
    --start;
    if ((static_cast<unsigned char>(text[start]) & 0xC0) != 0x80) break;
  }
  return text.substr(start);
}

// CodeCompanion ends its headings with a separator when `show_header_separator` is on: a space
// and its `separator` character repeated (`## Me ───`, "─" unless configured otherwise).
// Editors leave trailing blanks. Letters, digits and `)` never make a separator.
std::string_view without_heading_tail(std::string_view text) {
  text = without_trailing_blanks(text);
  std::string_view rule = last_char(text);
  if (rule.empty() || (rule.size() == 1 && (std::isalnum(static_cast<unsigned char>(rule[0])) ||
                                            rule[0] == ')' || rule[0] == '('))) {
    return text;
  }
  std::string_view rest = text;
  while (rest.size() >= rule.size() && rest.substr(rest.size() - rule.size()) == rule) {
    rest.remove_suffix(rule.size());
  }
  if (rest.empty() || (rest.back() != ' ' && rest.back() != '\t')) return text;
  return without_trailing_blanks(rest);
}

struct HeaderMatch {
  Role role;
  bool heading;
};

std::optional<HeaderMatch> match_header(std::string_view line, const RoleNames& roles) {
  if (line.empty()) return std::nullopt;
  const bool h2 = starts_with(line, "## ");
  if (h2 || starts_with(line, "# ")) {
    std::string_view name = without_heading_tail(line.substr(h2 ? 3 : 2));
    size_t paren = name.find(" (");
    if (h2 && paren != std::string_view::npos) {
      if (name.back() != ')') return std::nullopt;
      name = name.substr(0, paren);
    }
    if (auto role = role_named(name, roles)) return HeaderMatch{*role, true};
    return std::nullopt;
  }
  size_t colon = line.substr(0, kLongestName).find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view name = line.substr(0, colon);
  if (is_setting(name)) return std::nullopt;
  if (auto role = role_named(name, roles)) return HeaderMatch{*role, false};
  return std::nullopt;
}

}  // namespace

std::optional<Role> role_header(std::string_view line, const RoleNames& roles) {
  auto match = match_header(line, roles);
  return match ? std::optional<Role>(match->role) : std::nullopt;
}

std::string_view header_rest(std::string_view line) {
  if (starts_with(line, "#")) return {};
  size_t colon = line.substr(0, kLongestName).find(':');
  if (colon == std::string_view::npos) return {};
  std::string_view rest = line.substr(colon + 1);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

HeaderStyle header_style_for(std::string_view filetype) {
  if (filetype == "codecompanion") return HeaderStyle::Headings;
  if (filetype == "llm-sidekick") return HeaderStyle::Names;
  return HeaderStyle::Auto;
}

LineClass classify_line(std::string_view line, const RoleNames& roles) {
  LineClass out;
  if (auto header = match_header(line, roles)) {
    out.role = static_cast<int8_t>(header->role);
    out.heading = header->heading;
    return out;
  }
  if (auto open = fence_open(line)) {
    out.fence_char = open->ch;
    out.fence_length = open->length;
    out.bare = open->info.empty();
  }
  return out;
}

namespace {

// Finds closing fences. Remembers, per fence character, the last search that found nothing:
// a later fence of that character at least as long cannot be closed either, which keeps a
// buffer full of unclosed fences linear instead of quadratic.
class CloserFinder {
 public:
  explicit CloserFinder(const std::vector<LineClass>& classes) : classes_(classes) {}

  int find(int open_row, char ch, int length) {
    Miss& miss = ch == '`' ? backtick_ : tilde_;
    if (open_row > miss.row && length >= miss.length) return -1;
    const int n = static_cast<int>(classes_.size());
    for (int row = open_row + 1; row < n; ++row) {
      const LineClass& c = classes_[row];
      if (c.bare && c.fence_char == ch && c.fence_length >= length) return row;
    }
    miss = {open_row, length};
    return -1;
  }

 private:
  struct Miss {
    int row = INT_MAX;
    int length = INT_MAX;
  };
  const std::vector<LineClass>& classes_;
  Miss backtick_;
  Miss tilde_;
};

// A header of the buffer's style; the first header met fixes an Auto style.
bool is_header(const LineClass& c, HeaderStyle* style) {
  if (c.role < 0) return false;
  const HeaderStyle own = c.heading ? HeaderStyle::Headings : HeaderStyle::Names;
  if (*style == HeaderStyle::Auto) *style = own;
  return *style == own;
}

bool stops_here(const SplitStop* stop, int row) {
  if (!stop || row < stop->min_row) return false;
  const auto& old = *stop->old_segments;
  int old_row = row - stop->row_shift;
  auto it = std::lower_bound(old.begin() + 1, old.end(), old_row,
                             [](const Segment& s, int r) { return s.start < r; });
  return it != old.end() && it->start == old_row && it->role >= 0;
}

}  // namespace

std::vector<Segment> split_segments(const std::vector<LineClass>& classes, int from,
                                    HeaderStyle* style, const SplitStop* stop, int* stopped_at) {
  const int n = static_cast<int>(classes.size());
  std::vector<Segment> out;
  CloserFinder closers(classes);
  Segment current;
  current.start = from;
  int row = from;
  if (from > 0) {
    current.role = classes[from].role;
    row = from + 1;
  }
  while (row < n) {
    const LineClass& c = classes[row];
    if (is_header(c, style)) {
      current.end = row;
      out.push_back(current);
      if (stops_here(stop, row)) {
        if (stopped_at) *stopped_at = row;
        return out;
      }
      current = Segment{};
      current.start = row;
      current.role = c.role;
      ++row;
      continue;
    }
    if (c.fence_char) {
      int close = closers.find(row, c.fence_char, c.fence_length);
      if (close >= 0) {
        row = close + 1;
        continue;
      }
      // Unclosed: everything up to the next header is its content.
      current.unclosed_row = row;
      current.unclosed_char = c.fence_char;
      current.unclosed_length = c.fence_length;
      ++row;
      while (row < n && !is_header(classes[row], style)) ++row;
      continue;
    }
    ++row;
  }
  current.end = n;
  out.push_back(current);
  if (stopped_at) *stopped_at = n;
  return out;
}

}  // namespace toolhost::parse
