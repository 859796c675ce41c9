#pragma once
// The tools the parser and the runner know (SPEC 7): names, aliases, parameter aliases,
// required parameters and the words an executed block shows. Built-ins first; src/tools adds
// the custom tools of the config.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/status.h"

namespace toolhost::core {

// A parameter as a model sees it (SPEC 13.4): the JSON Schema of `tools()` and MCP's
// `tools/list` are generated from these, never written by hand.
struct ParamSpec {
  std::string name;
  std::vector<std::string> types{"string"};  // JSON Schema types; "array" holds strings
  std::string description;
  bool required = false;
  std::vector<std::string> choices;  // the only values allowed, when it is one of a few words
  bool shown_only = false;           // only shown to the user: not one of the text_params
};

// What a tool does to the world, for MCP's annotations: honest hints, not a policy.
enum class Effect { Reads, Writes, Runs };

// What a tool of an MCP server (SPEC 13.3) carries beyond a built-in's fields. The parser sees
// such a tool like any other (its `name` is `{server}__{tool}`); the runner hands its calls to
// the MCP layer through tools::RunContext::remote, and the policy reads the flags below.
struct RemoteTool {
  std::string server;                                      // the configured server's name
  std::string tool;                                        // the tool's own name on that server
  nlohmann::json input_schema = nlohmann::json::object();  // as the server sent it
  nlohmann::json annotations = nlohmann::json::object();   // the server's hints, untrusted
  bool auto_approve =
      false;  // `auto_approve` names it (or the whole server), or trusted + readOnlyHint
  // By the `auto_approve` list (not the whole server, not trust): such an approval holds only
  // while the fingerprint stays the one first seen.
  bool approved_by_name = false;
  bool destructive = false;  // the server says destructiveHint (or gives no hint)
  // A hash of the description and the input schema: an approval by name holds only while it
  // stays the same (SPEC 13.3).
  std::string fingerprint;
};

struct ToolSpec {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;  // canonical names; `required` below lists the required ones
  Effect effect = Effect::Runs;
  std::vector<std::string> aliases;
  std::vector<std::string> required;                 // canonical parameter names
  std::map<std::string, std::string> param_aliases;  // alias -> canonical
  // Canonical parameters that hold a list (replace_in_file's search/replace): a string value
  // becomes a one-element list, and an alias with a number suffix (`old_block2`) appends to it.
  std::vector<std::string> list_params;
  // Canonical parameters the tool reads as text (its string parameters but those only shown):
  // a structured value there (XML child elements, a JSON object or list) is a parse error, not
  // a call that fails when it runs. A list of texts is allowed for `per_item_param`.
  std::vector<std::string> text_params;
  // The header of its executed llm-sidekick block on success (SPEC 10.1).
  std::string done_label = "✓ Executed:";
  // A list given for this parameter makes one call per item (`read_files` with
  // `file_paths: [a, b]` is two reads, as llm-sidekick shows it: a `**Read:**` header each).
  std::string per_item_param;
  // Set for a tool an MCP server offers; built-in and custom tools have none.
  std::optional<RemoteTool> remote;
};

struct ToolTable {
  std::vector<ToolSpec> tools;
  // Finds a tool by its name or one of its aliases.
  const ToolSpec* find(std::string_view name_or_alias) const;
};

ToolTable builtin_tool_table();
// The built-ins and the custom tools of `config` (their required parameters from `params`).
ToolTable tool_table_for(const Config& config);

// The header of an executed llm-sidekick block (SPEC 10.1): the tool's `done_label` on
// success, else "✗ Failed:", "✗ Timed out:", "✗ Canceled:", "✗ Rejected:", "✗ Interrupted:".
std::string executed_label(Status status, const ToolSpec* spec);
// The header of an executed `**Tool:** `name`` block (SPEC 13.3, any tool named by the table,
// an MCP server's above all): "✓ Called:" on success, else the failure labels above.
std::string called_label(Status status);
// Every label executed_label() and called_label() can return for the tools of `table`, for
// reading them back.
std::vector<std::string> executed_labels(const ToolTable& table);

}  // namespace toolhost::core
