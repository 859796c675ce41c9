#include "core/custom_tool.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace toolhost::core {
namespace {

constexpr const char* kKeys[] = {"cmd",    "cmds",        "shell",      "fn",
                                 "params", "auto_accept", "timeout_ms", "cwd",
                                 "env",    "description", "sandbox",    "quickfix"};

bool is_strings(const nlohmann::json& value) {
  return value.is_array() && !value.empty() &&
         std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// The `${name}`s of an argv template, in order.
std::vector<std::string> placeholders(const std::vector<std::vector<std::string>>& cmds) {
  std::vector<std::string> names;
  for (const auto& argv : cmds) {
    for (const auto& arg : argv) {
      for (const auto& piece : template_pieces(arg)) {
        if (!piece.placeholder) continue;
        if (std::find(names.begin(), names.end(), piece.text) == names.end()) {
          names.push_back(piece.text);
        }
      }
    }
  }
  return names;
}

Result<CustomTool> read_tool(const std::string& name, const nlohmann::json& spec) {
  const std::string at = "tools." + name;
  if (name.empty() || !std::all_of(name.begin(), name.end(), is_name_char)) {
    return error(at + ": a tool name is letters, digits, `_` and `-`");
  }
  if (!spec.is_object()) return error(at + ": expected a table");
  for (const auto& [key, value] : spec.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return error(at + ": unknown key `" + key + "`");
    }
  }
  CustomTool tool;
  tool.name = name;
  auto has = [&](const char* key) { return spec.contains(key) && !spec[key].is_null(); };
  auto bad = [&](const char* key, const char* expected) {
    return error(at + "." + key + ": expected " + expected);
  };
  int runners = has("cmd") + has("cmds") + has("fn");
  if (runners != 1) return error(at + ": give exactly one of `cmd`, `cmds` and `fn`");
  if (has("cmd")) {
    if (!is_strings(spec["cmd"])) return bad("cmd", "a non-empty list of strings");
    tool.cmds.push_back(spec["cmd"].get<std::vector<std::string>>());
  }
  if (has("cmds")) {
    const auto& cmds = spec["cmds"];
    if (!cmds.is_array() || cmds.empty() || !std::all_of(cmds.begin(), cmds.end(), is_strings)) {
      return bad("cmds", "a list of non-empty lists of strings");
    }
    for (const auto& argv : cmds) tool.cmds.push_back(argv.get<std::vector<std::string>>());
  }
  if (has("fn")) {
    if (spec["fn"] != true) return bad("fn", "a Lua function");
    tool.fn = true;
  }
  if (has("shell")) {
    if (!spec["shell"].is_boolean()) return bad("shell", "a boolean");
    tool.shell = spec["shell"].get<bool>();
    if (tool.shell && !has("cmd")) return error(at + ".shell: only a `cmd` tool runs in a shell");
  }
  if (has("description")) {
    if (!spec["description"].is_string()) return bad("description", "a string");
    tool.description = spec["description"];
  }
  if (has("cwd")) {
    if (!spec["cwd"].is_string()) return bad("cwd", "a string");
    tool.cwd = spec["cwd"];
  }
  if (has("timeout_ms")) {
    const auto& t = spec["timeout_ms"];
    if (!t.is_number() || t.get<double>() < 0 || t.get<double>() != std::floor(t.get<double>())) {
      return bad("timeout_ms", "a whole number >= 0");
    }
    tool.timeout_ms = static_cast<uint64_t>(t.get<double>());
  }
  if (has("env")) {
    // Lua sends an empty table as an empty list.
    const auto& env =
        spec["env"].is_array() && spec["env"].empty() ? nlohmann::json::object() : spec["env"];
    if (!env.is_object()) return bad("env", "a table of strings");
    for (const auto& [key, value] : env.items()) {
      if (!value.is_string() || key.empty() || key.find('=') != std::string::npos) {
        return bad("env", "a table of strings");
      }
      tool.env.emplace_back(key, value.get<std::string>());
    }
  }
  if (has("auto_accept")) {
    const auto& accept = spec["auto_accept"];
    if (accept.is_boolean()) {
      tool.auto_accept =
          accept.get<bool>() ? CustomTool::AutoAccept::Yes : CustomTool::AutoAccept::No;
    } else if (accept == "function") {
      tool.auto_accept = CustomTool::AutoAccept::Function;
    } else {
      return bad("auto_accept", "a boolean or a Lua function");
    }
  }
  if (has("sandbox")) {
    if (!spec["sandbox"].is_boolean()) return bad("sandbox", "a boolean");
    tool.sandbox = spec["sandbox"].get<bool>();
  }
  if (has("quickfix")) {
    auto format = quickfix_format_from_json(spec["quickfix"], at + ".quickfix");
    if (!format) return error(format.error());
    tool.quickfix = *format;
  }
  if (has("params")) {
    const auto& params = spec["params"].is_array() && spec["params"].empty()
                             ? nlohmann::json::object()
                             : spec["params"];
    if (!params.is_object()) return bad("params", "a table of name = { required, description }");
    for (const auto& [key, value] : params.items()) {
      CustomParam param{key, false, ""};
      if (!value.is_object()) return bad("params", "a table of name = { required, description }");
      if (value.contains("required")) {
        if (!value["required"].is_boolean()) return bad("params", "`required` as a boolean");
        param.required = value["required"].get<bool>();
      }
      if (value.contains("description")) {
        if (!value["description"].is_string()) return bad("params", "`description` as a string");
        param.description = value["description"];
      }
      tool.params.push_back(std::move(param));
    }
  }
  // A template's `${name}` is a parameter the call must give, declared or not.
  for (const auto& used : placeholders(tool.cmds)) {
    auto it = std::find_if(tool.params.begin(), tool.params.end(),
                           [&](const CustomParam& p) { return p.name == used; });
    if (it == tool.params.end()) tool.params.push_back({used, true, ""});
  }
  return tool;
}

}  // namespace

std::vector<TemplatePiece> template_pieces(const std::string& element) {
  std::vector<TemplatePiece> pieces;
  auto literal = [&](std::string_view text) {
    if (text.empty()) return;
    if (pieces.empty() || pieces.back().placeholder) pieces.push_back({false, ""});
    pieces.back().text += text;
  };
  size_t at = 0;
  while (at < element.size()) {
    if (element.compare(at, 3, "$${") == 0) {
      literal("${");
      at += 3;
      continue;
    }
    if (element.compare(at, 2, "${") == 0) {
      size_t end = at + 2;
      while (end < element.size() && is_name_char(element[end])) ++end;
      if (end > at + 2 && end < element.size() && element[end] == '}') {
        pieces.push_back({true, element.substr(at + 2, end - at - 2)});
        at = end + 1;
        continue;
      }
    }
    literal(std::string_view(element).substr(at, 1));
    ++at;
  }
  return pieces;
}

Result<std::vector<CustomTool>> custom_tools_from_json(const nlohmann::json& tools) {
  std::vector<CustomTool> out;
  if (tools.is_null() || (tools.is_array() && tools.empty())) return out;  // Lua's {}
  if (!tools.is_object()) return error("tools: expected a table of name = spec");
  for (const auto& [name, spec] : tools.items()) {
    auto tool = read_tool(name, spec);
    if (!tool) return error(tool.error());
    out.push_back(std::move(*tool));
  }
  return out;
}

nlohmann::json custom_tool_to_json(const CustomTool& tool) {
  nlohmann::json json = nlohmann::json::object();
  if (tool.fn) {
    json["fn"] = true;
  } else if (tool.cmds.size() == 1 && !tool.shell) {
    json["cmd"] = tool.cmds[0];
  } else if (tool.shell) {
    json["cmd"] = tool.cmds[0];
    json["shell"] = true;
  } else {
    json["cmds"] = tool.cmds;
  }
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : tool.params) {
    params[p.name] = {{"required", p.required}, {"description", p.description}};
  }
  json["params"] = params;
  json["auto_accept"] = tool.auto_accept == CustomTool::AutoAccept::Function
                            ? nlohmann::json("function")
                            : nlohmann::json(tool.auto_accept == CustomTool::AutoAccept::Yes);
  if (tool.timeout_ms) json["timeout_ms"] = *tool.timeout_ms;
  if (!tool.sandbox) json["sandbox"] = false;
  if (tool.quickfix) json["quickfix"] = quickfix_format_to_json(*tool.quickfix);
  if (!tool.cwd.empty()) json["cwd"] = tool.cwd;
  if (!tool.description.empty()) json["description"] = tool.description;
  if (!tool.env.empty()) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : tool.env) env[k] = v;
    json["env"] = env;
  }
  return json;
}

Result<QuickfixFormat> quickfix_format_from_json(const nlohmann::json& value,
                                                 const std::string& at) {
  QuickfixFormat format;
  if (value.is_boolean() && !value.get<bool>()) {
    format.off = true;
    return format;
  }
  const auto bad = error(at + ": expected { efm = \"...\" }, { compiler = \"name\" } or false");
  if (!value.is_object() || value.size() != 1) return bad;
  if (value.contains("efm") && value["efm"].is_string() &&
      !value["efm"].get<std::string>().empty()) {
    format.efm = value["efm"].get<std::string>();
  } else if (value.contains("compiler") && value["compiler"].is_string()) {
    format.compiler = value["compiler"].get<std::string>();
    // A `:compiler` argument: a plugin's file name, nothing a command line could run.
    if (format.compiler.empty() ||
        !std::all_of(format.compiler.begin(), format.compiler.end(),
                     [](char c) { return is_name_char(c) || c == '.'; })) {
      return bad;
    }
  } else {
    return bad;
  }
  return format;
}

nlohmann::json quickfix_format_to_json(const QuickfixFormat& format) {
  if (format.off) return false;
  if (!format.compiler.empty()) return {{"compiler", format.compiler}};
  return {{"efm", format.efm}};
}

}  // namespace toolhost::core
