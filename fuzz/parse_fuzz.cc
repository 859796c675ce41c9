// Fuzzes the parser with arbitrary bytes (invalid UTF-8, NUL, huge lines). Byte 0 picks the
// options; the rest is the buffer. Besides not crashing, an incremental re-parse after edits
// derived from the input must equal a full parse of the edited buffer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tool_table.h"
#include "parse/incremental.h"
#include "parse/parser.h"
#include "parse/print.h"

namespace {

using namespace toolhost;

std::vector<std::string> split_lines(const uint8_t* data, size_t size) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      lines.emplace_back();
    } else {
      lines.back().push_back(static_cast<char>(data[i]));
    }
  }
  return lines;
}

// The built-ins and two MCP servers' tools (SPEC 13.3), so `use_mcp_tool` actions, `**Tool:**`
// headers and their executed forms resolve as in a host that has servers.
core::ToolTable fuzz_tool_table() {
  core::ToolTable table = core::builtin_tool_table();
  auto add = [&](const char* server, const char* tool, const char* name) {
    core::ToolSpec spec;
    spec.name = name;
    spec.remote = core::RemoteTool{};
    spec.remote->server = server;
    spec.remote->tool = tool;
    table.tools.push_back(std::move(spec));
  };
  add("everything", "echo", "everything__echo");
  add("everything", "add", "everything__add");
  add("my docs", "search.v2", "my_docs__search.v2");
  return table;
}

std::string printable(const parse::ParseResult& result) {
  return parse::to_json(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  parse::Options options;
  static const core::ToolTable tools = fuzz_tool_table();
  options.tools = tools;
  options.complete = (flags & 1) != 0;
  std::vector<std::string> lines = split_lines(data + 1, size - 1);

  parse::ParseResult full = parse::parse(lines, options);
  (void)parse::to_text(full);
  for (const auto& error : full.errors) (void)parse::error_text(error);

  if ((flags & 2) == 0 || lines.size() < 2) return 0;
  // Edits from the input itself: move each line to another place, one at a time.
  parse::IncrementalParser parser(options);
  parser.reset(lines);
  const size_t edits = std::min<size_t>(lines.size(), 8);
  for (size_t e = 0; e < edits; ++e) {
    int count = static_cast<int>(lines.size());
    int first = static_cast<int>((flags >> 2) * 7 + e * 13) % count;
    int last = std::min(count, first + static_cast<int>(e % 3));
    std::vector<std::string> replacement{lines[(e * 5) % lines.size()]};
    if (e % 2) replacement.clear();
    lines.erase(lines.begin() + first, lines.begin() + last);
    lines.insert(lines.begin() + first, replacement.begin(), replacement.end());
    parser.apply(first, last, replacement);
    if (printable(parser.result()) != printable(parse::parse(lines, options))) __builtin_trap();
    if (lines.empty()) break;
  }
  return 0;
}
