#include "parse/call_id.h"

#include <cstdio>

namespace toolhost::parse {

uint64_t fnv1a64(std::string_view bytes, uint64_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string call_id(std::string_view tool, const nlohmann::json& params, int k) {
  nlohmann::json hashed = params.is_object() ? params : nlohmann::json::object();
  hashed.erase("purpose");
  hashed.erase("explanation");
  std::string text(tool);
  text.push_back('\0');
  text += hashed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.push_back('\0');
  text += std::to_string(k);
  char out[13];
  std::snprintf(out, sizeof out, "%012llx",
                static_cast<unsigned long long>(fnv1a64(text) & 0xffffffffffffULL));
  return out;
}

}  // namespace toolhost::parse
