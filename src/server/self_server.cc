#include "server/self_server.h"

#include <unistd.h>

#include <filesystem>
#include <sstream>

namespace toolhost::server {
namespace {

namespace fs = std::filesystem;

// Where `command` runs from: itself when it names a path, else the first executable of that
// name in `path`; empty when there is none.
std::string locate(const std::string& command, const std::string& path) {
  if (command.find('/') != std::string::npos) return command;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

bool starts_toolhost_serve(const mcp::StdioSpec& spec, const std::string& self_exe,
                           const std::string& path) {
  if (spec.args.size() < 2 || spec.args[0] != "mcp" || spec.args[1] != "serve") return false;
  if (fs::path(spec.command).filename() == "toolhost") return true;
  return same_file(locate(spec.command, path), self_exe);
}

}  // namespace toolhost::server
