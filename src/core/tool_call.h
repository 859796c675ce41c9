#pragma once
// A tool call as found in a chat buffer (SPEC 3). Rows are 0-based and end-exclusive.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace toolhost::core {

enum class Dialect { Sidekick, CodeCompanion, Json };

std::string_view to_string(Dialect);

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
  // The byte where the block starts on its first row: not 0 when the reply starts on the role
  // line (`ASSISTANT: **Read:** …`) or the header stands beside another one. Such a block
  // keeps its text when it finishes: the result goes after it.
  int column = 0;
  Status status = Status::Pending;  // pending, incomplete, or finished (from its result block)
  std::optional<ResultRef> result;
  int part = 0;                // 1-based index inside a multi-call block, 0 when alone
  int message = -1;            // index into the parse's messages
  bool executed_form = false;  // the block is already rewritten (✓ Executed: …)
};

}  // namespace toolhost::core
