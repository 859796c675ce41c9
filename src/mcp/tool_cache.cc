#include "mcp/tool_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/fs.h"

namespace toolhost::mcp {

std::string tool_cache_path(const std::string& state_dir, const std::string& hash) {
  return state_dir + "/mcp/tools-" + hash + ".json";
}

std::optional<CachedTools> read_tool_cache(const std::string& state_dir, const std::string& hash) {
  if (state_dir.empty()) return std::nullopt;
  std::ifstream in(tool_cache_path(state_dir, hash));
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  Json json = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("tools") || !json["tools"].is_array()) {
    return std::nullopt;
  }
  CachedTools cached;
  if (auto protocol = json.find("protocol"); protocol != json.end() && protocol->is_string()) {
    cached.protocol = protocol->get<std::string>();
  }
  for (const Json& entry : json["tools"]) {
    std::string error;
    auto tool = tool_from_json(entry, error);
    if (!tool) return std::nullopt;
    cached.tools.push_back(std::move(*tool));
  }
  return cached;
}

std::string write_tool_cache(const std::string& state_dir, const std::string& hash,
                             const std::string& server, const CachedTools& cached) {
  if (state_dir.empty()) return "";
  base::make_dirs(state_dir + "/mcp");
  Json tools = Json::array();
  for (const Tool& tool : cached.tools) tools.push_back(to_json(tool));
  const std::string text =
      Json{{"server", server}, {"protocol", cached.protocol}, {"tools", std::move(tools)}}.dump(
          -1, ' ', false, Json::error_handler_t::replace);
  const std::string path = tool_cache_path(state_dir, hash);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + temporary + ": " + std::strerror(errno);
  const bool written = base::write_all(fd, text);
  const int saved = errno;
  ::close(fd);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(written ? errno : saved);
    ::unlink(temporary.c_str());
    return "cannot write " + path + ": " + why;
  }
  return "";
}

}  // namespace toolhost::mcp
