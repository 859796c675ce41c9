#include "mcp/tool.h"

namespace toolhost::mcp {

Json to_json(const Tool& tool) {
  Json out = {{"name", tool.name}, {"inputSchema", tool.input_schema}};
  if (!tool.title.empty()) out["title"] = tool.title;
  if (!tool.description.empty()) out["description"] = tool.description;
  Json hints = Json::object();
  auto hint = [&](const char* key, const std::optional<bool>& value) {
    if (value) hints[key] = *value;
  };
  hint("readOnlyHint", tool.annotations.read_only);
  hint("destructiveHint", tool.annotations.destructive);
  hint("idempotentHint", tool.annotations.idempotent);
  hint("openWorldHint", tool.annotations.open_world);
  if (!hints.empty()) out["annotations"] = std::move(hints);
  return out;
}

Json to_json(const CallResult& result) {
  return {{"content", Json::array({{{"type", "text"}, {"text", result.text}}})},
          {"isError", result.is_error}};
}

}  // namespace toolhost::mcp
