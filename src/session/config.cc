#include "session/config.h"

#include <cstdlib>
#include <sstream>

#include <unistd.h>

namespace toolhost::session {
namespace {

template <class T>
void read(const nlohmann::json& object, const char* key, T& into) {
  if (object.is_object() && object.contains(key) && !object[key].is_null()) {
    into = object[key].get<T>();
  }
}

}  // namespace

Config config_from_json(const nlohmann::json& options) {
  Config config;
  read(options, "timeout_ms", config.timeout_ms);
  read(options, "max_timeout_ms", config.max_timeout_ms);
  read(options, "kill_grace_ms", config.kill_grace_ms);
  read(options, "max_concurrent", config.max_concurrent);
  read(options, "shell", config.shell);
  read(options, "history_max", config.history_max);
  if (options.is_object() && options.contains("output")) {
    const auto& output = options["output"];
    read(output, "max_lines", config.max_lines);
    read(output, "stream_lines", config.stream_lines);
    read(output, "stream_interval_ms", config.stream_interval_ms);
    read(output, "log_max_bytes", config.log_max_bytes);
  }
  if (options.is_object() && options.contains("roles")) {
    const auto& roles = options["roles"];
    read(roles, "user", config.roles.user);
    read(roles, "assistant", config.roles.assistant);
    read(roles, "system", config.roles.system);
  }
  if (config.shell.empty()) config.shell = default_shell();
  return config;
}

std::string default_shell() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/bash";
    if (::access(candidate.c_str(), X_OK) == 0) return "bash";
  }
  return "sh";
}

}  // namespace toolhost::session
