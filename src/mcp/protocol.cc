#include "mcp/protocol.h"

#include <algorithm>

namespace toolhost::mcp {

const std::vector<std::string>& supported_versions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18", "2025-03-26",
                                                 "2024-11-05"};
  return versions;
}

std::string negotiate_version(std::string_view requested) {
  const auto& versions = supported_versions();
  if (std::find(versions.begin(), versions.end(), requested) != versions.end()) {
    return std::string(requested);
  }
  return std::string(latest_version());
}

}  // namespace toolhost::mcp
