#include "tools/params.h"

#include <algorithm>

namespace toolhost::tools {

std::string_view json_type(const nlohmann::json& value) {
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "a list";
  if (value.is_object()) return "an object";
  if (value.is_null()) return "null";
  return "a string";
}

core::Result<std::string> string_param(const nlohmann::json& params, const char* name,
                                       std::optional<std::string> fallback) {
  auto it = params.find(name);
  if (it == params.end() || it->is_null()) {
    if (fallback) return *fallback;
    return core::error("parameter `" + std::string(name) + "` is missing");
  }
  if (!it->is_string()) {
    return core::error("parameter `" + std::string(name) + "` must be a string, not " +
                       std::string(json_type(*it)));
  }
  return it->get<std::string>();
}

namespace {

// A whole number >= 0 given as a number or as digits; nullopt for anything else.
std::optional<uint64_t> whole_number(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {
    if (value.get<int64_t>() < 0) return std::nullopt;
    return value.get<uint64_t>();
  }
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || text.size() > 12 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoull(text);
}

}  // namespace

core::Result<std::optional<uint64_t>> count_param(const nlohmann::json& params, const char* name) {
  auto it = params.find(name);
  if (it == params.end() || it->is_null()) return std::optional<uint64_t>();
  std::optional<uint64_t> value = whole_number(*it);
  if (!value || *value == 0) {
    return core::error("parameter `" + std::string(name) + "` must be a positive whole number");
  }
  return value;
}

core::Result<uint64_t> line_number_param(const nlohmann::json& params, const char* name) {
  auto it = params.find(name);
  if (it == params.end() || it->is_null()) {
    return core::error("parameter `" + std::string(name) + "` is missing");
  }
  std::optional<uint64_t> value = whole_number(*it);
  if (!value) {
    return core::error("parameter `" + std::string(name) + "` must be a whole number (0 or more)");
  }
  return *value;
}

bool flag_param(const nlohmann::json& params, const char* name) {
  auto it = params.find(name);
  if (it == params.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return *it == "true" || *it == "1" || *it == "yes";
  return it->is_number() && it->get<double>() != 0;
}

}  // namespace toolhost::tools
