#include "mcp/tool_names.h"

#include <cstdint>
#include <map>
#include <set>

#include "core/hash.h"

namespace toolhost::mcp {
namespace {

bool allowed(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// `_` and six hex digits of the pair's hash (`salt` > 0 when even that clashed).
std::string with_hash(const std::string& name, const std::string& server, const std::string& tool,
                      int salt) {
  std::string key = server + '\0' + tool;
  if (salt > 0) key += '\0' + std::to_string(salt);
  static const char* kHex = "0123456789abcdef";
  std::string suffix = "_";
  uint64_t hash = core::fnv1a64(key);
  for (int i = 0; i < 6; ++i) suffix += kHex[(hash >> (4 * i)) & 0xf];
  return name.substr(0, kMaxToolNameLength - suffix.size()) + suffix;
}

}  // namespace

std::string qualified_tool_name(const std::string& server, const std::string& tool) {
  std::string name = server + "__" + tool;
  for (char& c : name) {
    if (!allowed(c)) c = '_';
  }
  if (name.size() > kMaxToolNameLength) name.resize(kMaxToolNameLength);
  return name;
}

std::vector<std::string> qualified_tool_names(
    const std::vector<std::pair<std::string, std::string>>& tools) {
  std::vector<std::string> names;
  std::map<std::string, int> uses;
  for (const auto& [server, tool] : tools) {
    names.push_back(qualified_tool_name(server, tool));
    ++uses[names.back()];
  }
  std::set<std::string> taken;
  for (const auto& name : names) {
    if (uses[name] == 1) taken.insert(name);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (uses[names[i]] == 1) continue;
    const auto& [server, tool] = tools[i];
    std::string name = with_hash(names[i], server, tool, 0);
    for (int salt = 1; taken.count(name) > 0; ++salt) {
      name = with_hash(names[i], server, tool, salt);
    }
    taken.insert(name);
    names[i] = name;
  }
  return names;
}

}  // namespace toolhost::mcp
