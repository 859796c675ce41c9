#pragma once
// Makes tool output safe and readable in a buffer (SPEC 5): ANSI escapes stripped, `\r`
// progress lines collapsed, control characters in caret form (C1 controls, U+0080..U+009F,
// as <xx> like Neovim shows them), invalid UTF-8 as <xx>, lines cut after 500 code points
// of the cleaned text with `…`.

#include <string>
#include <string_view>
#include <vector>

namespace toolhost::results {

constexpr size_t kMaxLineCodePoints = 500;

// `max_code_points` cuts shorter: a streamed line needs no more than the screen is wide.
std::string clean_line(std::string_view raw, size_t max_code_points = kMaxLineCodePoints);
// Splits on '\n' (a final newline ends the last line, it does not start an empty one) and
// cleans every line.
std::vector<std::string> clean_lines(std::string_view text);

}  // namespace toolhost::results
