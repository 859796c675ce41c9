#pragma once
// Value types of the parser: buffer lines in, messages, tool calls and errors out.
// Rows are 0-based and end-exclusive everywhere (as nvim_buf_get_lines).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolhost::parse {

enum class Role { User, Assistant, System };
enum class Dialect { Sidekick, CodeCompanion, Json };

// pending/incomplete come from the text alone; the others from a result block.
enum class CallStatus {
  Pending,
  Incomplete,
  Succeeded,
  Failed,
  TimedOut,
  Canceled,
  Rejected,
  Interrupted,
};

std::string_view to_string(Role);
std::string_view to_string(Dialect);
std::string_view to_string(CallStatus);
std::optional<CallStatus> call_status_from_string(std::string_view);

struct Message {
  Role role;
  int start = 0;  // header row
  int end = 0;
};

// The ````result …```` block that follows a finished call.
struct ResultRef {
  int start = 0;
  int end = 0;
  std::string job_id;  // "th-7"
  std::string status;  // as written after status=
};

struct ToolCall {
  std::string id;         // 12 hex digits, SPEC 3 (FNV-1a content hash)
  std::string tool;       // canonical name (aliases resolved)
  nlohmann::json params;  // object, canonical parameter names
  Dialect dialect = Dialect::Sidekick;
  int start = 0;  // block rows: header through last fence / "> purpose" line
  int end = 0;
  CallStatus status = CallStatus::Pending;
  std::optional<ResultRef> result;
  int part = 0;                // 1-based index inside a multi-call block, 0 when alone
  int message = -1;            // index into ParseResult::messages
  bool executed_form = false;  // the block is already rewritten (✓ Executed: …)
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

// What the parser must know of tools; src/tools fills it with the built-ins and the config's.
struct ToolSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<std::string> required;                 // canonical parameter names
  std::map<std::string, std::string> param_aliases;  // alias -> canonical
  // Canonical parameters that hold a list (replace_in_file's search/replace): a string value
  // becomes a one-element list, and an alias with a number suffix (`old_block2`) appends to it.
  std::vector<std::string> list_params;
};

struct ToolTable {
  std::vector<ToolSpec> tools;
  // Finds a tool by its name or one of its aliases.
  const ToolSpec* find(std::string_view name_or_alias) const;
};

struct RoleNames {
  std::vector<std::string> user{"Me", "User", "USER"};
  std::vector<std::string> assistant{"CodeCompanion", "Assistant", "ASSISTANT", "LLM"};
  std::vector<std::string> system{"System", "SYSTEM"};
};

// What an edit changed, by call id: added/removed, or changed in place (status, result, range
// or parameters of a call that kept its id). Calls that only moved with the text are not listed.
struct ParseDelta {
  std::vector<std::string> added;
  std::vector<std::string> changed;
  std::vector<std::string> removed;
  bool empty() const { return added.empty() && changed.empty() && removed.empty(); }
};

struct Options {
  ToolTable tools;
  RoleNames roles;
  // false while the last assistant message may still be streaming in: a fence left open at
  // its end is `incomplete`, not an error (SPEC 3.1).
  bool complete = true;
};

}  // namespace toolhost::parse
