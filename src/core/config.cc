#include "core/config.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/tool_table.h"

namespace toolhost::core {
namespace {

// Reads `object[key]` into `into` when present and not null; the error names `path.key`.
class Reader {
 public:
  explicit Reader(std::string prefix = "") : prefix_(std::move(prefix)) {}

  template <class T>
  void read(const nlohmann::json& object, const char* key, T& into) {
    if (!error_.empty() || !object.is_object()) return;
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return;
    if (!fits<T>(*it)) {
      error_ = prefix_ + key + ": expected " + expected<T>();
      return;
    }
    into = it->get<T>();
  }

  const std::string& error() const { return error_; }
  void take(const Reader& nested) {
    if (error_.empty()) error_ = nested.error_;
  }

 private:
  template <class T>
  static bool fits(const nlohmann::json& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      return value.is_string();
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      if (!value.is_array()) return false;
      for (const auto& item : value) {
        if (!item.is_string()) return false;
      }
      return true;
    } else {
      if (value.is_number_integer()) {
        return std::is_signed_v<T> || value.is_number_unsigned() || value.get<int64_t>() >= 0;
      }
      if (!value.is_number_float()) return false;
      double number = value.get<double>();  // Lua numbers may arrive as floats
      bool whole = std::abs(number) < 9.0e18 && number == std::floor(number);
      return whole && (std::is_signed_v<T> || number >= 0);
    }
  }

  template <class T>
  static const char* expected() {
    if constexpr (std::is_same_v<T, std::string>) return "a string";
    if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a list of strings";
    if constexpr (std::is_unsigned_v<T>) return "a whole number >= 0";
    return "a whole number";
  }

  std::string prefix_;
  std::string error_;
};

// `"git log"`, `{ "words": "git log", "deny": [...] }` or `["git log", ...]` (a Lua list).
Result<AllowEntry> allow_entry_from_json(const nlohmann::json& entry) {
  auto words_of = [](const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
  };
  const auto bad = error(
      "allow.commands: expected \"cmd words\" or { \"cmd words\", deny = { \"--opt\", ... }, "
      "sandbox = false, network = true }");
  AllowEntry out;
  if (entry.is_string()) {
    out.words = words_of(entry.get<std::string>());
  } else if (entry.is_object() && entry.contains("words") && entry["words"].is_string()) {
    out.words = words_of(entry["words"].get<std::string>());
    if (entry.contains("deny") && !entry["deny"].is_null()) {
      const auto& deny = entry["deny"];
      if (!deny.is_array()) return bad;
      for (const auto& option : deny) {
        if (!option.is_string()) return bad;
        out.deny.push_back(option.get<std::string>());
      }
    }
    for (const char* flag : {"sandbox", "network"}) {
      if (!entry.contains(flag) || entry[flag].is_null()) continue;
      if (!entry[flag].is_boolean()) return bad;
      (std::string(flag) == "sandbox" ? out.sandbox : out.network) = entry[flag].get<bool>();
    }
  } else {
    return bad;
  }
  if (out.words.empty()) return bad;
  return out;
}

// `sandbox`, `sandbox_approved`, `sandbox_writable`, `sandbox_secrets`.
Result<bool> sandbox_from_json(const nlohmann::json& options, SandboxConfig& out) {
  if (!options.is_object()) return true;
  auto present = [&](const char* key) { return options.contains(key) && !options[key].is_null(); };
  if (present("sandbox")) {
    const auto& mode = options["sandbox"];
    if (mode == "auto") {
      out.mode = SandboxMode::Auto;
    } else if (mode == "off") {
      out.mode = SandboxMode::Off;
    } else {
      return error("sandbox: expected \"auto\" or \"off\"");
    }
  }
  if (present("sandbox_approved")) {
    if (!options["sandbox_approved"].is_boolean()) {
      return error("sandbox_approved: expected a boolean");
    }
    out.approved = options["sandbox_approved"].get<bool>();
  }
  Reader reader;
  reader.read(options, "sandbox_writable", out.writable);
  if (present("sandbox_secrets")) {
    out.secrets.emplace();
    reader.read(options, "sandbox_secrets", *out.secrets);
  }
  if (!reader.error().empty()) return error(reader.error());
  return true;
}

// `quickfix`: enabled, diagnostics, max_items, max_files, commands (word -> format).
Result<bool> quickfix_from_json(const nlohmann::json& options, QuickfixConfig& out) {
  for (const char* flag : {"enabled", "diagnostics"}) {
    if (!options.contains(flag) || options[flag].is_null()) continue;
    if (!options[flag].is_boolean())
      return error(std::string("quickfix.") + flag + ": expected a boolean");
    (std::string(flag) == "enabled" ? out.enabled : out.diagnostics) = options[flag].get<bool>();
  }
  Reader reader("quickfix.");
  reader.read(options, "max_items", out.max_items);
  reader.read(options, "max_files", out.max_files);
  if (!reader.error().empty()) return error(reader.error());
  if (out.max_items == 0 || out.max_files == 0) {
    return error("quickfix: max_items and max_files: expected a whole number > 0");
  }
  if (options.contains("commands") && !options["commands"].is_null()) {
    const auto& commands = options["commands"];
    if (commands.is_array() && commands.empty()) return true;  // Lua's {}
    if (!commands.is_object()) return error("quickfix.commands: expected a table");
    for (const auto& [word, value] : commands.items()) {
      auto format = quickfix_format_from_json(value, "quickfix.commands." + word);
      if (!format) return error(format.error());
      out.commands.emplace_back(word, *format);
    }
  }
  return true;
}

}  // namespace

Result<Config> config_from_json(const nlohmann::json& options) {
  Config config;
  if (!options.is_null() && !options.is_object()) return error("options: expected a table");
  Reader reader;
  reader.read(options, "timeout_ms", config.timeout_ms);
  reader.read(options, "max_timeout_ms", config.max_timeout_ms);
  reader.read(options, "kill_grace_ms", config.kill_grace_ms);
  reader.read(options, "max_concurrent", config.max_concurrent);
  reader.read(options, "job_nice", config.job_nice);
  reader.read(options, "shell", config.shell);
  reader.read(options, "history_max", config.history_max);
  if (options.is_object() && options.contains("auto_accept_edits") &&
      !options["auto_accept_edits"].is_null()) {
    if (!options["auto_accept_edits"].is_boolean()) {
      return error("auto_accept_edits: expected a boolean");
    }
    config.auto_accept_edits = options["auto_accept_edits"].get<bool>();
  }
  const nlohmann::json empty = nlohmann::json::object();
  auto nested = [&](const char* key) -> const nlohmann::json& {
    auto it = options.is_object() ? options.find(key) : options.end();
    return options.is_object() && it != options.end() && it->is_object() ? *it : empty;
  };
  Reader output("output.");
  output.read(nested("output"), "max_lines", config.output.max_lines);
  output.read(nested("output"), "stream_lines", config.output.stream_lines);
  output.read(nested("output"), "stream_interval_ms", config.output.stream_interval_ms);
  output.read(nested("output"), "stream_width", config.output.stream_width);
  output.read(nested("output"), "log_max_bytes", config.output.log_max_bytes);
  reader.take(output);
  Reader roles("roles.");
  roles.read(nested("roles"), "user", config.roles.user);
  roles.read(nested("roles"), "assistant", config.roles.assistant);
  roles.read(nested("roles"), "system", config.roles.system);
  reader.take(roles);
  if (!reader.error().empty()) return error(reader.error());
  const nlohmann::json& allow = nested("allow");
  if (allow.contains("commands") && !allow["commands"].is_null()) {
    if (!allow["commands"].is_array()) return error("allow.commands: expected a list");
    config.allow_commands.emplace();
    for (const auto& entry : allow["commands"]) {
      auto read = allow_entry_from_json(entry);
      if (!read) return error(read.error());
      config.allow_commands->push_back(std::move(*read));
    }
  }
  if (options.is_object() && options.contains("tools")) {
    auto tools = custom_tools_from_json(options["tools"]);
    if (!tools) return error(tools.error());
    const ToolTable builtins = builtin_tool_table();
    for (const auto& tool : *tools) {
      if (builtins.find(tool.name)) {
        return error("tools." + tool.name + ": a built-in tool has this name");
      }
    }
    config.tools = std::move(*tools);
  }
  if (auto sandbox = sandbox_from_json(options, config.sandbox); !sandbox) {
    return error(sandbox.error());
  }
  if (auto quickfix = quickfix_from_json(nested("quickfix"), config.quickfix); !quickfix) {
    return error(quickfix.error());
  }
  if (config.max_concurrent < 1) return error("max_concurrent: expected a number > 0");
  if (config.job_nice < 0 || config.job_nice > defaults::kMaxNice) {
    return error("job_nice: expected a number from 0 to 19");
  }
  if (config.shell.empty()) config.shell = default_shell();
  return config;
}

nlohmann::json config_to_json(const Config& config) {
  nlohmann::json json = {
      {"timeout_ms", config.timeout_ms},
      {"max_timeout_ms", config.max_timeout_ms},
      {"kill_grace_ms", config.kill_grace_ms},
      {"max_concurrent", config.max_concurrent},
      {"job_nice", config.job_nice},
      {"history_max", config.history_max},
      {"output",
       {{"max_lines", config.output.max_lines},
        {"stream_lines", config.output.stream_lines},
        {"stream_interval_ms", config.output.stream_interval_ms},
        {"stream_width", config.output.stream_width},
        {"log_max_bytes", config.output.log_max_bytes}}},
      {"roles",
       {{"user", config.roles.user},
        {"assistant", config.roles.assistant},
        {"system", config.roles.system}}},
  };
  if (!config.shell.empty()) json["shell"] = config.shell;
  json["auto_accept_edits"] = config.auto_accept_edits;
  json["sandbox"] = config.sandbox.mode == SandboxMode::Auto ? "auto" : "off";
  json["sandbox_approved"] = config.sandbox.approved;
  json["sandbox_writable"] = config.sandbox.writable;
  json["quickfix"] = {{"enabled", config.quickfix.enabled},
                      {"diagnostics", config.quickfix.diagnostics},
                      {"max_items", config.quickfix.max_items},
                      {"max_files", config.quickfix.max_files}};
  if (!config.quickfix.commands.empty()) {
    nlohmann::json commands = nlohmann::json::object();
    for (const auto& [word, format] : config.quickfix.commands) {
      commands[word] = quickfix_format_to_json(format);
    }
    json["quickfix"]["commands"] = commands;
  }
  if (config.sandbox.secrets) json["sandbox_secrets"] = *config.sandbox.secrets;
  if (config.allow_commands) {
    nlohmann::json commands = nlohmann::json::array();
    for (const auto& entry : *config.allow_commands) {
      std::string words;
      for (const auto& word : entry.words) words += (words.empty() ? "" : " ") + word;
      nlohmann::json out = {{"words", words}, {"deny", entry.deny}};
      if (!entry.sandbox) out["sandbox"] = false;
      if (entry.network) out["network"] = true;
      commands.push_back(std::move(out));
    }
    json["allow"] = {{"commands", commands}};
  }
  if (!config.tools.empty()) {
    nlohmann::json tools = nlohmann::json::object();
    for (const auto& tool : config.tools) tools[tool.name] = custom_tool_to_json(tool);
    json["tools"] = tools;
  }
  return json;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string default_shell() {
  return on_path("bash") ? "bash" : "sh";
}

}  // namespace toolhost::core
