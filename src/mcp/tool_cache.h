#pragma once
// The tools each server listed last, kept on disk by the hash of its spec (SPEC 13.3): a
// buffer that names them parses before the server has started, or answered. One JSON file per
// hash in {state_dir}/mcp/; a file that does not read back is no cache.

#include <optional>
#include <string>
#include <vector>

#include "mcp/tool.h"

namespace toolhost::mcp {

struct CachedTools {
  std::string protocol;  // the version the server spoke
  std::vector<Tool> tools;
};

std::string tool_cache_path(const std::string& state_dir, const std::string& hash);
std::optional<CachedTools> read_tool_cache(const std::string& state_dir, const std::string& hash);
// Writes the file whole (a temporary file renamed over it); the reason it could not, or "".
std::string write_tool_cache(const std::string& state_dir, const std::string& hash,
                             const std::string& server, const CachedTools& cached);

}  // namespace toolhost::mcp
