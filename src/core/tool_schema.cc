#include "core/tool_schema.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace toolhost::core {

using nlohmann::json;

namespace {

constexpr size_t kMaxApiName = 64;

bool api_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

std::string cleaned(const std::string& name) {
  std::string out = name.empty() ? "_" : name;
  for (char& c : out) {
    if (!api_char(c)) c = '_';
  }
  if (out.size() > kMaxApiName) out.resize(kMaxApiName);
  return out;
}

// `_` and six hex digits of FNV-1a over `key`.
std::string hash_suffix(const std::string& key) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : key) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  static const char* kHex = "0123456789abcdef";
  std::string suffix = "_";
  for (int i = 0; i < 6; ++i) suffix += kHex[(hash >> (4 * i)) & 0xf];
  return suffix;
}

}  // namespace

std::vector<std::string> api_tool_names(const ToolTable& table) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  // Names that need no change come first: a cleaned name never takes one of them.
  for (const ToolSpec& tool : table.tools) {
    if (cleaned(tool.name) == tool.name) taken.insert(tool.name);
  }
  for (const ToolSpec& tool : table.tools) {
    std::string name = cleaned(tool.name);
    if (name != tool.name) {
      for (int salt = 0; taken.count(name) > 0; ++salt) {
        std::string suffix =
            hash_suffix(salt == 0 ? tool.name : tool.name + '\0' + std::to_string(salt));
        name = cleaned(tool.name).substr(0, kMaxApiName - suffix.size()) + suffix;
      }
      taken.insert(name);
    }
    names.push_back(std::move(name));
  }
  return names;
}

const ToolSpec* find_by_api_name(const ToolTable& table, std::string_view name) {
  // Most tables have no name to clean: then no call is by another name, and none is worth
  // building the names for (a block may hold 100k calls of unknown tools).
  const bool any_cleaned = std::any_of(table.tools.begin(), table.tools.end(), [](const auto& t) {
    return t.name.empty() || t.name.size() > kMaxApiName ||
           !std::all_of(t.name.begin(), t.name.end(), api_char);
  });
  if (!any_cleaned) return nullptr;
  std::vector<std::string> names = api_tool_names(table);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name && table.tools[i].name != name) return &table.tools[i];
  }
  return nullptr;
}

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

json tool_json(const ToolSpec& tool, SchemaFormat format, std::optional<std::string> name) {
  const std::string& shown = name ? *name : tool.name;
  switch (format) {
    case SchemaFormat::kOpenAI:
      return {{"type", "function"},
              {"function",
               {{"name", shown},
                {"description", tool.description},
                {"parameters", input_schema(tool)}}}};
    case SchemaFormat::kAnthropic:
      return {
          {"name", shown}, {"description", tool.description}, {"input_schema", input_schema(tool)}};
    case SchemaFormat::kMcp: break;
  }
  return {{"name", shown},
          {"description", tool.description},
          {"inputSchema", input_schema(tool)},
          {"annotations", annotations(tool)}};
}

json tools_json(const ToolTable& table, SchemaFormat format) {
  json tools = json::array();
  if (format == SchemaFormat::kMcp) {
    for (const ToolSpec& tool : table.tools) tools.push_back(tool_json(tool, format));
    return tools;
  }
  std::vector<std::string> names = api_tool_names(table);
  for (size_t i = 0; i < names.size(); ++i) {
    tools.push_back(tool_json(table.tools[i], format, std::move(names[i])));
  }
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
