#include "mcp/server_config.h"

#include <cstdio>
#include <cstdlib>

#include "core/hash.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

// Reads one server's spec into `config`; the first problem found, or empty.
std::string read_spec(const Json& spec, const Lookup& lookup, ServerConfig& config) {
  if (!spec.is_object()) return "expected a table";
  std::string error;
  auto text = [&](const char* key, std::string& out) -> bool {
    auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return true;
    if (!it->is_string()) {
      error = std::string(key) + ": expected a string";
      return false;
    }
    std::string why;
    auto value = expand_variables(it->get<std::string>(), lookup, why);
    if (!value) error = std::string(key) + ": " + why;
    if (value) out = *value;
    return value.has_value();
  };
  auto number = [&](const char* key, uint64_t& out) -> bool {
    auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return true;
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0) {
      error = std::string(key) + ": expected a positive number of milliseconds";
      return false;
    }
    out = it->get<uint64_t>();
    return true;
  };
  if (!text("command", config.stdio.command) || !text("cwd", config.stdio.cwd) ||
      !text("url", config.url) || !number("timeout_ms", config.timeout_ms) ||
      !number("startup_timeout_ms", config.startup_timeout_ms)) {
    return error;
  }
  std::string protocol = "auto";
  if (!text("protocol", protocol)) return error;
  if (protocol != "auto" && protocol != "2026-07-28") {
    return "protocol: expected \"auto\" or \"2026-07-28\"";
  }
  config.discover_first = protocol == "2026-07-28";
  if (auto it = spec.find("disabled"); it != spec.end() && !it->is_null()) {
    if (!it->is_boolean()) return "disabled: expected a boolean";
    config.disabled = it->get<bool>();
  }
  if (auto it = spec.find("args"); it != spec.end() && !it->is_null()) {
    if (!it->is_array()) return "args: expected a list of strings";
    for (const Json& arg : *it) {
      if (!arg.is_string()) return "args: expected a list of strings";
      auto value = expand_variables(arg.get<std::string>(), lookup, error);
      if (!value) return "args: " + error;
      config.stdio.args.push_back(*value);
    }
  }
  if (auto it = spec.find("env"); it != spec.end() && !it->is_null()) {
    if (!it->is_object()) return "env: expected a table of strings";
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return "env." + key + ": expected a string";
      auto expanded = expand_variables(value.get<std::string>(), lookup, error);
      if (!expanded) return "env." + key + ": " + error;
      config.stdio.env.emplace_back(key, *expanded);
    }
  }
  auto names = [&](const char* key, std::vector<std::string>& out) -> std::string {
    auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return "";
    if (!it->is_array()) return std::string(key) + ": expected a list of tool names";
    for (const Json& name : *it) {
      if (!name.is_string()) return std::string(key) + ": expected a list of tool names";
      out.push_back(name.get<std::string>());
    }
    return "";
  };
  if (auto it = spec.find("auto_approve"); it != spec.end() && it->is_boolean()) {
    config.auto_approve_all = it->get<bool>();
  } else if (std::string why = names("auto_approve", config.auto_approve); !why.empty()) {
    return "auto_approve: expected true or a list of tool names";
  }
  if (std::string why = names("disabled_tools", config.disabled_tools); !why.empty()) return why;
  if (auto it = spec.find("trusted"); it != spec.end() && !it->is_null()) {
    if (!it->is_boolean()) return "trusted: expected a boolean";
    config.trusted = it->get<bool>();
  }
  if (auto it = spec.find("headers"); it != spec.end() && !it->is_null()) {
    if (!it->is_object()) return "headers: expected a table of strings";
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return "headers." + key + ": expected a string";
      auto expanded = expand_variables(value.get<std::string>(), lookup, error);
      if (!expanded) return "headers." + key + ": " + error;
      config.headers.emplace_back(key, *expanded);
    }
  }
  auto expand = [&](const std::string& value, std::string& why) {
    return expand_variables(value, lookup, why);
  };
  if (std::string why = read_oauth_config(spec, expand, config.oauth); !why.empty()) return why;
  if (config.stdio.command.empty() && config.url.empty()) return "needs a command or a url";
  if (!config.stdio.command.empty() && !config.url.empty()) return "has both a command and a url";
  return "";
}

}  // namespace

std::string ServerConfig::hash() const {
  Json identity = {{"command", stdio.command},
                   {"args", stdio.args},
                   {"env", stdio.env},
                   {"cwd", stdio.cwd},
                   {"url", url},
                   {"headers", headers},
                   {"discover_first", discover_first}};
  char text[17];
  snprintf(text, sizeof text, "%016llx",
           static_cast<unsigned long long>(core::fnv1a64(identity.dump())));
  return text;
}

std::optional<std::string> expand_variables(const std::string& text, const Lookup& lookup,
                                            std::string& error) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t open = text.find("${", at);
    size_t close = open == std::string::npos ? open : text.find('}', open + 2);
    if (close == std::string::npos) {
      out.append(text, at, std::string::npos);
      break;
    }
    out.append(text, at, open - at);
    std::string name = text.substr(open + 2, close - open - 2);
    if (name.rfind("env:", 0) == 0) name.erase(0, 4);
    std::optional<std::string> value = name.empty() ? std::nullopt : lookup(name);
    if (!value) {
      error = "${" + text.substr(open + 2, close - open - 2) + "} is not set in the environment";
      return std::nullopt;
    }
    out += *value;
    at = close + 1;
  }
  return out;
}

ServersConfig servers_from_json(const nlohmann::json& mcp, const Lookup& lookup) {
  ServersConfig out;
  if (mcp.is_null()) return out;
  if (!mcp.is_object()) {
    out.error = "mcp: expected a table";
    return out;
  }
  auto servers = mcp.find("servers");
  if (servers == mcp.end() || servers->is_null()) return out;
  if (!servers->is_object()) {
    out.error = "mcp.servers: expected a table of NAME = spec";
    return out;
  }
  for (const auto& [name, spec] : servers->items()) {
    ServerConfig config;
    config.name = name;
    config.error = read_spec(spec, lookup, config);
    out.servers.push_back(std::move(config));
  }
  return out;
}

Lookup environment_lookup() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

}  // namespace toolhost::mcp
