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

std::optional<Tool> tool_from_json(const Json& json, std::string& error) {
  if (!json.is_object() || !json.contains("name") || !json["name"].is_string()) {
    error = "a tool needs a \"name\" string";
    return std::nullopt;
  }
  Tool tool;
  tool.name = json["name"].get<std::string>();
  auto text = [&](const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  tool.title = text("title");
  tool.description = text("description");
  if (auto schema = json.find("inputSchema"); schema != json.end()) {
    if (!schema->is_object()) {
      error = "tool " + tool.name + ": \"inputSchema\" is not an object";
      return std::nullopt;
    }
    tool.input_schema = *schema;
  }
  if (auto hints = json.find("annotations"); hints != json.end() && hints->is_object()) {
    auto hint = [&](const char* key) -> std::optional<bool> {
      auto it = hints->find(key);
      if (it == hints->end() || !it->is_boolean()) return std::nullopt;
      return it->get<bool>();
    };
    tool.annotations.read_only = hint("readOnlyHint");
    tool.annotations.destructive = hint("destructiveHint");
    tool.annotations.idempotent = hint("idempotentHint");
    tool.annotations.open_world = hint("openWorldHint");
    if (tool.title.empty()) tool.title = hints->value("title", std::string());
  }
  return tool;
}

Json to_json(const CallResult& result) {
  return {{"content", Json::array({{{"type", "text"}, {"text", result.text}}})},
          {"isError", result.is_error}};
}

}  // namespace toolhost::mcp
