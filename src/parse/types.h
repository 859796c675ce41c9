#pragma once
// Value types of the parser: buffer lines in, messages, tool calls and errors out.
// Rows are 0-based and end-exclusive everywhere (as nvim_buf_get_lines).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/roles.h"
#include "core/status.h"
#include "core/tool_call.h"
#include "core/tool_table.h"

namespace toolhost::parse {

// The parser speaks the core vocabulary.
using core::Dialect;
using core::ResultRef;
using core::Role;
using core::RoleNames;
using core::Status;
using core::to_string;
using core::ToolCall;
using core::ToolSpec;
using core::ToolTable;

struct Message {
  Role role;
  int start = 0;  // header row
  int end = 0;
};

struct ParseError {
  int start = 0;  // the malformed block's rows
  int end = 0;
  int line = 0;         // the exact row of the problem (an XML error's offset, an unclosed fence)
  std::string message;  // "unknown tool `no_such_tool`"
};

struct ParseResult {
  std::vector<Message> messages;
  std::vector<ToolCall> calls;
  std::vector<ParseError> errors;
};

// What an edit changed, by call id: added/removed, or changed in place (status, result, range
// or parameters of a call that kept its id). Calls that only moved with the text are not listed.
struct ParseDelta {
  std::vector<std::string> added;
  std::vector<std::string> changed;
  std::vector<std::string> removed;
  bool empty() const { return added.empty() && changed.empty() && removed.empty(); }
};

// Which role headers split a buffer into messages (SPEC 3, one style per buffer): a tool block
// a user pasted into a CodeCompanion message must not start an `Assistant:` message, nor may a
// `## ` heading in an llm-sidekick reply start one.
enum class HeaderStyle {
  Auto,      // the style of the buffer's first role header
  Headings,  // `## Name`, `# Name` (CodeCompanion)
  Names,     // `NAME: text` (llm-sidekick)
};

struct Options {
  ToolTable tools;
  RoleNames roles;
  HeaderStyle header_style = HeaderStyle::Auto;
  // false while the last assistant message may still be streaming in: a fence left open at
  // its end is `incomplete`, not an error (SPEC 3.1).
  bool complete = true;
};

}  // namespace toolhost::parse
