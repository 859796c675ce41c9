#pragma once
// The errorformats toolhost writes itself, for the commands that have no `:compiler` plugin in
// Neovim's runtime (make, pytest, rg: none in 0.7.2 nor 0.10) or whose plugin loses what a list
// needs (0.7.2's `:compiler gcc` leaves notes untyped). Written once here; Neovim's own engine
// parses with them (worker.h), so their meaning is Neovim's.

#include <string_view>

namespace toolhost::quickfix::formats {

// gcc, g++ and clang: `file:line:col: error: text`; `%t` takes the word's first letter (e, w,
// n, f for "fatal error").
extern const std::string_view kGcc;
// make, cmake and ninja driving a C compiler: gcc's lines and make's `Entering directory` /
// `Leaving directory`, which Neovim keeps as a directory stack across appends.
extern const std::string_view kMake;
// pytest's locations in its default, `--tb=short` and `--tb=line` reports.
extern const std::string_view kPytest;
// `rg --vimgrep`: every match with its column.
extern const std::string_view kVimgrep;
// `grep -n` over several files (or -H): `file:line:text`.
extern const std::string_view kGrep;

}  // namespace toolhost::quickfix::formats
