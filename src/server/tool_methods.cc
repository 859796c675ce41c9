#include "server/tool_methods.h"

#include "core/tool_schema.h"

namespace toolhost::server {

core::Result<nlohmann::json> tools_list(const core::ToolTable& table, const nlohmann::json& args) {
  std::string name = "openai";
  if (args.is_object() && args.contains("format")) {
    if (!args["format"].is_string()) return core::error("format must be a string");
    name = args["format"].get<std::string>();
  }
  auto format = core::schema_format(name);
  if (!format) return core::error("unknown format `" + name + "` (openai, anthropic or mcp)");
  return core::tools_json(table, *format);
}

}  // namespace toolhost::server
