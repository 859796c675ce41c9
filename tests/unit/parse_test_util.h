#pragma once
// Helpers shared by the parse_*_test.cc files.

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/tool_table.h"
#include "parse/parser.h"

namespace toolhost::parse::testing {

inline std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      if (start < text.size()) lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

inline Options default_options(bool complete = true) {
  Options options;
  options.tools = core::builtin_tool_table();
  options.complete = complete;
  return options;
}

inline ParseResult parse_text(std::string_view text, bool complete = true) {
  return parse(lines_of(text), default_options(complete));
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string fixture_path(const std::string& name) {
  return std::string(TOOLHOST_FIXTURES) + "/parse/" + name;
}

}  // namespace toolhost::parse::testing
