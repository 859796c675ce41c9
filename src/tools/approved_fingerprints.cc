#include "tools/approved_fingerprints.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/fs.h"

namespace toolhost::tools {
namespace {

std::string key(const std::string& server, const std::string& tool) {
  return server + "\t" + tool;
}

}  // namespace

ApprovedFingerprints::ApprovedFingerprints(std::string state_dir) {
  if (state_dir.empty()) return;
  path_ = state_dir + "/mcp/approved.json";
  std::ifstream in(path_);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return;
  for (const auto& [name, fingerprint] : json.items()) {
    if (fingerprint.is_string()) seen_[name] = fingerprint.get<std::string>();
  }
}

std::optional<std::string> ApprovedFingerprints::get(const std::string& server,
                                                     const std::string& tool) const {
  auto it = seen_.find(key(server, tool));
  if (it == seen_.end()) return std::nullopt;
  return it->second;
}

std::string ApprovedFingerprints::set(const std::string& server, const std::string& tool,
                                      const std::string& fingerprint) {
  std::string& slot = seen_[key(server, tool)];
  if (slot == fingerprint) return "";
  slot = fingerprint;
  if (path_.empty()) return "";
  base::make_dirs(path_.substr(0, path_.rfind('/')));
  const std::string text =
      nlohmann::json(seen_).dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string temporary = path_ + ".tmp" + std::to_string(::getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + temporary + ": " + std::strerror(errno);
  const bool written = base::write_all(fd, text);
  ::close(fd);
  if (!written || std::rename(temporary.c_str(), path_.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    return "cannot write " + path_ + ": " + why;
  }
  return "";
}

}  // namespace toolhost::tools
