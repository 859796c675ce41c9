#include "core/tool_schema.h"

namespace toolhost::core {

using nlohmann::json;

std::optional<SchemaFormat> schema_format(std::string_view name) {
  if (name == "openai") return SchemaFormat::kOpenAI;
  if (name == "anthropic") return SchemaFormat::kAnthropic;
  if (name == "mcp") return SchemaFormat::kMcp;
  return std::nullopt;
}

json input_schema(const ToolSpec& tool) {
  if (tool.remote) return tool.remote->input_schema;
  json properties = json::object();
  for (const ParamSpec& param : tool.params) {
    json property =
        param.types.size() == 1 ? json{{"type", param.types[0]}} : json{{"type", param.types}};
    if (param.types.size() == 1 && param.types[0] == "array") {
      property["items"] = {{"type", "string"}};
    }
    if (!param.description.empty()) property["description"] = param.description;
    if (!param.choices.empty()) property["enum"] = param.choices;
    properties[param.name] = std::move(property);
  }
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", tool.required},
          {"additionalProperties", false}};
}

json annotations(const ToolSpec& tool) {
  if (tool.remote) {
    json hints = tool.remote->annotations.is_object() ? tool.remote->annotations : json::object();
    if (!hints.contains("title")) hints["title"] = tool.name;
    return hints;
  }
  bool reads = tool.effect == Effect::Reads;
  json hints = {{"title", tool.name}, {"readOnlyHint", reads}, {"destructiveHint", !reads}};
  if (tool.effect == Effect::Runs) hints["openWorldHint"] = true;
  return hints;
}

json tool_json(const ToolSpec& tool, SchemaFormat format) {
  switch (format) {
    case SchemaFormat::kOpenAI:
      return {{"type", "function"},
              {"function",
               {{"name", tool.name},
                {"description", tool.description},
                {"parameters", input_schema(tool)}}}};
    case SchemaFormat::kAnthropic:
      return {{"name", tool.name},
              {"description", tool.description},
              {"input_schema", input_schema(tool)}};
    case SchemaFormat::kMcp: break;
  }
  return {{"name", tool.name},
          {"description", tool.description},
          {"inputSchema", input_schema(tool)},
          {"annotations", annotations(tool)}};
}

json tools_json(const ToolTable& table, SchemaFormat format) {
  json tools = json::array();
  for (const ToolSpec& tool : table.tools) tools.push_back(tool_json(tool, format));
  return tools;
}

Result<json> tools_json(const Config& config, std::string_view format) {
  auto known = schema_format(format);
  if (!known) {
    return error("unknown format `" + std::string(format) + "` (openai, anthropic or mcp)");
  }
  return tools_json(tool_table_for(config), *known);
}

}  // namespace toolhost::core
