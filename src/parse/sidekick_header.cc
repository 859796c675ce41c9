#include "parse/sidekick_header.h"

#include <cctype>

#include "core/tool_table.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

struct LabelKind {
  std::string_view word;
  HeaderKind kind;
};
constexpr LabelKind kLabels[] = {
    {"Execute", HeaderKind::Execute}, {"Write", HeaderKind::Write},
    {"Create", HeaderKind::Create},   {"Replace", HeaderKind::Replace},
    {"Path", HeaderKind::Replace},    {"Read", HeaderKind::Read},
    {"ls", HeaderKind::List},         {"Insert", HeaderKind::Insert},
    {"Tool", HeaderKind::Tool},
};

// llm-sidekick names the terminal block after the basename of 'shell' (`**zsh**`). toolhost runs
// every command with its own configured shell, whatever the header says.
constexpr std::string_view kShellHeaders[] = {"**bash**", "**zsh**", "**fish**", "**sh**",
                                              "**dash**", "**ksh**", "**tcsh**", "**csh**",
                                              "**nu**",   "**pwsh**"};

bool is_shell_header(std::string_view body) {
  for (std::string_view header : kShellHeaders) {
    if (body == header) return true;
  }
  return false;
}

// The content of a code span that makes up all of `text` (`a`, `` a`b ``), else nullopt.
std::optional<std::string> whole_code_span(std::string_view text) {
  size_t ticks = 0;
  while (ticks < text.size() && text[ticks] == '`') ++ticks;
  if (ticks == 0 || text.size() <= 2 * ticks) return std::nullopt;
  size_t trailing = 0;
  while (trailing < text.size() && text[text.size() - 1 - trailing] == '`') ++trailing;
  if (trailing != ticks) return std::nullopt;
  std::string_view inner = text.substr(ticks, text.size() - 2 * ticks);
  if (ticks == 1 && inner.find('`') != std::string_view::npos) return std::nullopt;
  if (ticks > 1 && inner.size() >= 2 && inner.front() == ' ' && inner.back() == ' ') {
    inner = inner.substr(1, inner.size() - 2);
  }
  return std::string(inner);
}

size_t run_of(std::string_view text, size_t at, char ch) {
  size_t end = at;
  while (end < text.size() && text[end] == ch) ++end;
  return end - at;
}

// The code span that opens at `at` (CommonMark: it closes at the next backtick run of the same
// length); sets `end` past it.
std::optional<std::string> code_span_at(std::string_view text, size_t at, size_t& end) {
  size_t ticks = run_of(text, at, '`');
  if (ticks == 0) return std::nullopt;
  for (size_t pos = text.find('`', at + ticks); pos != std::string_view::npos;) {
    size_t run = run_of(text, pos, '`');
    if (run == ticks) {
      end = pos + run;
      return whole_code_span(text.substr(at, end - at));
    }
    pos = text.find('`', pos + run);
  }
  return std::nullopt;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

size_t skip_space(std::string_view text, size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}

// Label headers from `at` on, side by side; empty unless they fill the rest of the text.
std::vector<Header> label_headers(std::string_view text, size_t at) {
  std::vector<Header> headers;
  while (at < text.size()) {
    if (!starts_with(text.substr(at), "**")) return {};
    size_t close = text.find(":**", at + 2);
    if (close == std::string_view::npos) return {};
    std::string_view word = text.substr(at + 2, close - at - 2);
    size_t after = close + 3;
    // llm-sidekick's own prompt shows an edit as ``**Path:**: `config.yaml` `` and models copy
    // what they are shown: one stray colon after the label is the same header (issue #37).
    if (after < text.size() && text[after] == ':') ++after;
    if (after >= text.size() || text[after] != ' ') return {};
    const LabelKind* label = nullptr;
    for (const auto& candidate : kLabels) {
      if (word == candidate.word) label = &candidate;
    }
    if (!label) return {};
    size_t end = 0;
    auto span = code_span_at(text, skip_space(text, after), end);
    if (!span) return {};
    headers.push_back(Header{label->kind, std::move(span), at, ""});
    at = skip_space(text, end);
  }
  return headers;
}

// Every executed label starts with one of these marks; other lines need no label look-up.
bool has_executed_mark(std::string_view body) {
  return starts_with(body, "✓ ") || starts_with(body, "✗ ");
}

std::optional<Header> executed_header(std::string_view body, const ToolTable& tools,
                                      size_t column) {
  for (const std::string& prefix : core::executed_labels(tools)) {
    if (!starts_with(body, prefix)) continue;
    std::string_view rest = trim(body.substr(prefix.size()));
    if (rest.empty()) return Header{HeaderKind::Executed, std::nullopt, column, prefix};
    auto span = whole_code_span(rest);
    if (!span) return std::nullopt;
    return Header{HeaderKind::Executed, span, column, prefix};
  }
  return std::nullopt;
}

}  // namespace

std::vector<Header> parse_headers(std::string_view text, const ToolTable& tools) {
  auto stripped = strip_indent(text);
  if (!stripped) return {};
  const size_t column = text.size() - stripped->size();
  std::string_view body = *stripped;
  while (!body.empty() && is_space(body.back())) body.remove_suffix(1);
  if (is_shell_header(body)) return {Header{HeaderKind::Shell, std::nullopt, column, ""}};
  if (starts_with(body, "**")) {
    std::vector<Header> headers = label_headers(body, 0);
    for (auto& header : headers) header.column += column;
    return headers;
  }
  if (!has_executed_mark(body)) return {};
  // The headers of executed forms: the block was rewritten when its job finished.
  if (auto header = executed_header(body, tools, column)) return {*header};
  return {};
}

bool is_label(std::string_view line, std::string_view label) {
  auto body = strip_indent(line);
  if (!body) return false;
  std::string_view text = trim(*body);
  return text.size() == label.size() + 5 && starts_with(text, "**") &&
         text.substr(2, label.size()) == label && text.substr(2 + label.size()) == ":**";
}

int replacement_number(std::string_view line) {
  auto body = strip_indent(line);
  if (!body) return 0;
  std::string_view text = trim(*body);
  constexpr std::string_view kPrefix = "**Replacement ";
  if (!starts_with(text, kPrefix) || text.size() < kPrefix.size() + 4) return 0;
  std::string_view digits = text.substr(kPrefix.size(), text.size() - kPrefix.size() - 3);
  if (text.substr(text.size() - 3) != ":**" || digits.empty() || digits.size() > 4) return 0;
  int number = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    number = number * 10 + (c - '0');
  }
  return number;
}

}  // namespace toolhost::parse
