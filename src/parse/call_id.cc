#include "parse/call_id.h"

#include <cstdio>

namespace toolhost::parse {

uint64_t call_content_hash(std::string_view tool, const nlohmann::json& params) {
  nlohmann::json hashed = params.is_object() ? params : nlohmann::json::object();
  hashed.erase("purpose");
  hashed.erase("explanation");
  std::string text(tool);
  text.push_back('\0');
  text += hashed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.push_back('\0');
  return fnv1a64(text);
}

std::string call_id_from_hash(uint64_t content_hash, int k) {
  char out[13];
  std::snprintf(out, sizeof out, "%012llx",
                static_cast<unsigned long long>(fnv1a64(std::to_string(k), content_hash) &
                                                0xffffffffffffULL));
  return out;
}

std::string call_id(std::string_view tool, const nlohmann::json& params, int k) {
  return call_id_from_hash(call_content_hash(tool, params), k);
}

}  // namespace toolhost::parse
