#include "mcp/tool_specs.h"

#include <algorithm>
#include <cstdio>

#include "core/hash.h"
#include "mcp/tool_names.h"

namespace toolhost::mcp {
namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The schema's properties as parameters, so the parser knows their names; their values stay
// as the model wrote them (no text_params: an object or a list is a fine MCP argument).
std::vector<core::ParamSpec> params_of(const Json& schema) {
  std::vector<core::ParamSpec> params;
  auto properties = schema.find("properties");
  if (properties == schema.end() || !properties->is_object()) return params;
  std::vector<std::string> required;
  if (auto list = schema.find("required"); list != schema.end() && list->is_array()) {
    for (const Json& name : *list) {
      if (name.is_string()) required.push_back(name.get<std::string>());
    }
  }
  for (const auto& [name, property] : properties->items()) {
    core::ParamSpec param;
    param.name = name;
    param.required = listed(required, name);
    if (property.is_object()) {
      // A server's schema is untrusted: a value of the wrong type is left out, never thrown.
      if (auto text = property.find("description"); text != property.end() && text->is_string()) {
        param.description = text->get<std::string>();
      }
      if (auto type = property.find("type"); type != property.end()) {
        if (type->is_string()) param.types = {type->get<std::string>()};
        if (type->is_array()) {
          param.types.clear();
          for (const Json& t : *type) {
            if (t.is_string()) param.types.push_back(t.get<std::string>());
          }
        }
      }
    }
    params.push_back(std::move(param));
  }
  return params;
}

}  // namespace

std::string tool_fingerprint(const Tool& tool) {
  uint64_t hash = core::fnv1a64(tool.description);
  hash = core::fnv1a64(std::string(1, '\0') + tool.input_schema.dump(), hash);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

bool auto_approved(const ServerConfig& config, const Tool& tool, bool* by_name) {
  const bool named = !config.auto_approve_all && listed(config.auto_approve, tool.name);
  if (by_name) *by_name = named;
  if (config.auto_approve_all || named) return true;
  return config.trusted && tool.annotations.read_only.value_or(false);
}

std::vector<core::ToolSpec> tool_specs(const std::vector<ServerTools>& servers) {
  std::vector<std::pair<const ServerConfig*, const Tool*>> kept;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const ServerTools& server : servers) {
    if (!server.config) continue;
    for (const Tool& tool : server.tools) {
      if (listed(server.config->disabled_tools, tool.name)) continue;
      kept.emplace_back(server.config, &tool);
      pairs.emplace_back(server.config->name, tool.name);
    }
  }
  std::vector<std::string> names = qualified_tool_names(pairs);
  std::vector<core::ToolSpec> specs;
  specs.reserve(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const auto& [config, tool] = kept[i];
    core::ToolSpec spec;
    spec.name = names[i];
    spec.description = tool->description.empty() ? tool->title : tool->description;
    spec.params = params_of(tool->input_schema);
    const bool read_only = tool->annotations.read_only.value_or(false);
    spec.effect = read_only ? core::Effect::Reads : core::Effect::Runs;
    core::RemoteTool remote;
    remote.server = config->name;
    remote.tool = tool->name;
    remote.input_schema = tool->input_schema;
    remote.annotations = to_json(*tool).value("annotations", Json::object());
    remote.auto_approve = auto_approved(*config, *tool, &remote.approved_by_name);
    // MCP's default: a tool that is not read-only may destroy, unless it says it does not.
    remote.destructive = !read_only && tool->annotations.destructive.value_or(true);
    remote.fingerprint = tool_fingerprint(*tool);
    spec.remote = std::move(remote);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace toolhost::mcp
