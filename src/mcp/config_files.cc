#include "mcp/config_files.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

// The keys a format keeps its servers under, the first winning a name found under both.
std::vector<const char*> server_keys(FileFormat format) {
  switch (format) {
    case FileFormat::kClaudeCode: return {"mcpServers"};
    case FileFormat::kVsCode: return {"servers"};
    default: return {"servers", "mcpServers"};  // mcphub: VS Code's key first, as mcphub reads it
  }
}

// The lookup of a file's `${…}`: Claude Code's `VAR:-default` and VS Code's predefined
// variables on top of the environment.
Lookup file_lookup(const Lookup& environment, const Places& places) {
  return [environment, places](const std::string& name) -> std::optional<std::string> {
    if (name == "workspaceFolder" && !places.project_root.empty()) return places.project_root;
    if (name == "workspaceFolderBasename" && !places.project_root.empty()) {
      return places.project_root.substr(places.project_root.rfind('/') + 1);
    }
    if (name == "userHome" && !places.home.empty()) return places.home;
    if (name == "pathSeparator" || name == "/") return std::string("/");
    if (size_t dash = name.find(":-"); dash != std::string::npos) {
      auto value = environment(name.substr(0, dash));
      if (value && !value->empty()) return value;
      return name.substr(dash + 2);
    }
    return environment(name);
  };
}

// The first placeholder in `entry` that would need something to run or ask: its error.
std::string unsupported_placeholder(const Json& entry, const Json& inputs) {
  if (entry.is_object() || entry.is_array()) {
    for (const Json& value : entry) {
      if (std::string why = unsupported_placeholder(value, inputs); !why.empty()) return why;
    }
    return "";
  }
  if (!entry.is_string()) return "";
  const std::string& text = entry.get_ref<const std::string&>();
  if (size_t at = text.find("${input:"); at != std::string::npos) {
    size_t close = text.find('}', at);
    std::string id = text.substr(at + 8, close == std::string::npos ? close : close - at - 8);
    std::string description;
    auto text_at = [](const Json& object, const char* key) {
      auto it = object.find(key);
      return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    for (const Json& input : inputs.is_array() ? inputs : Json::array()) {
      if (input.is_object() && text_at(input, "id") == id) {
        description = text_at(input, "description");
      }
    }
    return "${input:" + id + "}" + (description.empty() ? "" : " (" + description + ")") +
           " is a value VS Code asks for, which toolhost cannot: put it in the environment "
           "and write ${env:NAME}";
  }
  if (text.find("${cmd:") != std::string::npos || text.rfind("$: ", 0) == 0) {
    return "a value made by running a command (mcphub's ${cmd: ...}) is never run by toolhost: "
           "put the value in the environment and write ${env:NAME}";
  }
  return "";
}

// An entry of `format` as setup()'s spec, or why it cannot be.
std::string translate(const Json& entry, FileFormat format, Json& spec) {
  if (!entry.is_object()) return "expected an object";
  static const std::set<std::string> kCommon = {"command", "args",    "env",     "cwd",
                                                "url",     "headers", "disabled"};
  static const std::set<std::string> kOurs = {"auto_approve", "disabled_tools",     "trusted",
                                              "timeout_ms",   "startup_timeout_ms", "protocol",
                                              "oauth"};
  spec = Json::object();
  for (const auto& [key, value] : entry.items()) {
    bool ours = format == FileFormat::kToolhost && kOurs.count(key) > 0;
    if (kCommon.count(key) > 0 || ours) spec[key] = value;
  }
  if (format == FileFormat::kMcphub) {
    if (entry.contains("autoApprove")) spec["auto_approve"] = entry["autoApprove"];
    if (entry.contains("disabled_tools")) spec["disabled_tools"] = entry["disabled_tools"];
    // mcphub's null or "" means "the variable from mcphub's environment": the server inherits
    // toolhost's, which is the same.
    if (spec.contains("env") && spec["env"].is_object()) {
      for (auto it = spec["env"].begin(); it != spec["env"].end();) {
        bool inherit =
            it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty());
        it = inherit ? spec["env"].erase(it) : std::next(it);
      }
    }
  }
  if (spec.contains("env") && spec["env"].is_object()) {
    for (auto& value : spec["env"]) {
      if (value.is_number()) value = value.dump();  // VS Code allows numbers
    }
  }
  if (entry.contains("envFile")) {
    return "envFile is not read by toolhost: put the variables in env, or in the environment";
  }
  auto type = entry.find("type");
  if (type == entry.end() || type->is_null()) return "";
  if (!type->is_string()) return "type: expected \"stdio\", \"http\" or \"sse\"";
  const std::string& name = type->get_ref<const std::string&>();
  if (name == "stdio") return spec.contains("command") ? "" : "type \"stdio\" needs a command";
  if (name == "http" || name == "streamable-http" || name == "streamableHttp") {
    return spec.contains("url") ? "" : "type \"" + name + "\" needs a url";
  }
  if (name == "sse") {
    return "type \"sse\" is the old HTTP+SSE transport, which toolhost does not speak: most "
           "servers also serve Streamable HTTP (often at /mcp): write type \"http\" and its url";
  }
  return "type: expected \"stdio\", \"http\" or \"sse\", not \"" + name + "\"";
}

// `toolhost mcp serve`: how agents reach toolhost (README, :help toolhost-agents-setup), in the
// same files. toolhost does not call its own tools through itself.
bool is_toolhost_itself(const ServerConfig& config) {
  const std::string& command = config.stdio.command;
  std::string base = command.substr(command.rfind('/') + 1);
  return base == "toolhost" && config.stdio.args.size() >= 2 && config.stdio.args[0] == "mcp" &&
         config.stdio.args[1] == "serve";
}

// "not valid JSON: line L, column C: what" from nlohmann's message.
std::string parse_error_text(const std::string& what) {
  size_t at = what.find("parse error at ");
  std::string detail = at == std::string::npos ? what : what.substr(at + 15);
  return "not valid JSON: " + detail;
}

}  // namespace

Places places_from_environment(const std::string& project_root) {
  Places places;
  places.project_root = project_root;
  const char* home = std::getenv("HOME");
  places.home = home ? home : "";
  const char* config = std::getenv("XDG_CONFIG_HOME");
  places.config_home = config && *config == '/' ? config : places.home + "/.config";
  return places;
}

std::vector<ConfigFile> config_files(const Places& places) {
  std::vector<ConfigFile> files = {
      {places.config_home + "/toolhost/mcp.json", FileFormat::kToolhost, false},
      {places.home + "/.config/mcphub/servers.json", FileFormat::kMcphub, false},
  };
  if (!places.project_root.empty()) {
    files.push_back({places.project_root + "/.mcp.json", FileFormat::kClaudeCode, true});
    files.push_back({places.project_root + "/.vscode/mcp.json", FileFormat::kVsCode, true});
  }
  return files;
}

std::string strip_jsonc(const std::string& text) {
  std::string out = text;
  size_t comma = std::string::npos;  // the last comma outside strings, not yet followed by a value
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (c == '"') {
      for (++i; i < out.size() && out[i] != '"'; ++i) {
        if (out[i] == '\\') ++i;
      }
      comma = std::string::npos;
    } else if (c == '/' && i + 1 < out.size() && (out[i + 1] == '/' || out[i + 1] == '*')) {
      bool line = out[i + 1] == '/';
      size_t end = line ? out.find('\n', i) : out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : (line ? end : end + 2);
      for (size_t j = i; j < end; ++j) {
        if (out[j] != '\n') out[j] = ' ';
      }
      i = end - 1;
    } else if (c == ',') {
      comma = i;
    } else if ((c == '}' || c == ']') && comma != std::string::npos) {
      out[comma] = ' ';
      comma = std::string::npos;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      comma = std::string::npos;
    }
  }
  return out;
}

FileServers read_config_text(const ConfigFile& file, const std::string& text, const Places& places,
                             const Lookup& lookup) {
  FileServers out;
  out.file = file;
  std::string json_text = strip_jsonc(text);
  if (json_text.find_first_not_of(" \t\r\n") == std::string::npos) return out;  // empty: none
  Json json;
  try {
    json = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    out.error = parse_error_text(e.what());
    return out;
  }
  if (!json.is_object()) {
    out.error = "expected a JSON object";
    return out;
  }
  Lookup expand = file_lookup(lookup, places);
  std::set<std::string> seen;
  for (const char* key : server_keys(file.format)) {
    auto servers = json.find(key);
    if (servers == json.end() || servers->is_null()) continue;
    if (!servers->is_object()) {
      out.error = std::string(key) + ": expected an object of NAME: server";
      out.servers.clear();
      return out;
    }
    out.entries[key] = *servers;
    for (const auto& [name, entry] : servers->items()) {
      if (!seen.insert(name).second) {
        out.warnings.push_back("\"" + name + "\" under " + key + " is ignored: it is under " +
                               server_keys(file.format)[0] + " too");
        continue;
      }
      Json spec;
      std::string why = translate(entry, file.format, spec);
      Json one = Json::object();
      one[name] = spec;
      ServersConfig read = servers_from_json(Json{{"servers", one}}, expand);
      ServerConfig config = read.servers.empty() ? ServerConfig{} : read.servers.front();
      config.name = name;
      config.source = file.path;
      if (std::string placeholder = unsupported_placeholder(entry, json.value("inputs", Json()));
          !placeholder.empty()) {
        why = placeholder;
      }
      if (!why.empty()) config.error = why;
      if (file.project && !config.stdio.command.empty() && !places.project_root.empty()) {
        if (config.stdio.cwd.empty()) {
          config.stdio.cwd = places.project_root;
        } else if (config.stdio.cwd[0] != '/') {
          config.stdio.cwd = places.project_root + "/" + config.stdio.cwd;
        }
      }
      if (is_toolhost_itself(config)) continue;
      out.servers.push_back(std::move(config));
    }
  }
  return out;
}

std::optional<FileServers> read_config_file(const ConfigFile& file, const Places& places,
                                            const Lookup& lookup) {
  struct stat info {};
  if (::stat(file.path.c_str(), &info) != 0 && errno == ENOENT) return std::nullopt;
  std::ifstream in(file.path, std::ios::binary);
  std::ostringstream text;
  if (in && S_ISREG(info.st_mode)) text << in.rdbuf();
  if (!in || !S_ISREG(info.st_mode) || in.bad()) {
    FileServers out;
    out.file = file;
    out.error = "cannot be read";
    return out;
  }
  return read_config_text(file, text.str(), places, lookup);
}

Configured merge_servers(const ServersConfig& setup, std::vector<FileServers> files) {
  Configured out;
  std::map<std::string, ServerConfig> by_name;
  auto add = [&](ServerConfig config) {
    auto [it, added] = by_name.emplace(config.name, config);
    if (!added) {
      out.messages.push_back("MCP server \"" + config.name + "\" of " + config.source +
                             " is ignored: " + it->second.source + " configures \"" + config.name +
                             "\" first");
    }
  };
  if (!setup.error.empty()) out.messages.push_back(std::string(kSetupSource) + ": " + setup.error);
  for (ServerConfig config : setup.servers) {
    if (config.source.empty()) config.source = kSetupSource;
    add(std::move(config));
  }
  for (const FileServers& file : files) {
    if (!file.error.empty()) out.messages.push_back(file.file.path + ": " + file.error);
    for (const std::string& warning : file.warnings) {
      out.messages.push_back(file.file.path + ": " + warning);
    }
    for (const ServerConfig& config : file.servers) add(config);
  }
  for (auto& [name, config] : by_name) out.servers.push_back(std::move(config));
  out.files = std::move(files);
  return out;
}

Configured load_servers(const ServersConfig& setup, const Places& places, const Lookup& lookup) {
  std::vector<FileServers> files;
  for (const ConfigFile& file : config_files(places)) {
    if (auto read = read_config_file(file, places, lookup)) files.push_back(std::move(*read));
  }
  return merge_servers(setup, std::move(files));
}

}  // namespace toolhost::mcp
