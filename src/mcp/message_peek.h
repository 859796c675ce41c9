#pragma once
// What the line relay of `toolhost mcp serve` needs to know of a JSON-RPC line without building
// it (SPEC 13.5): its id, its method, and whether it answers a request. A tool's answer can be
// megabytes; the peek reads the top level only and stops as soon as the answer is known, so the
// relay keeps track of what the host owes the agent at a cost that does not grow with results.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace toolhost::mcp {

struct PeekedMessage {
  std::optional<nlohmann::json> id;  // a string, a number or null, as written
  std::string method;                // empty for an answer
  bool is_answer = false;            // "result" or "error" at the top level, no "method"

  bool is_request() const { return id.has_value() && !method.empty(); }
};

// Nothing (no id, no method) for a line that is not a JSON object: a batch, or not JSON.
PeekedMessage peek_message(std::string_view line);

}  // namespace toolhost::mcp
