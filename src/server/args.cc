#include "server/args.h"

namespace toolhost::server {

Args::Args(const nlohmann::json& args)
    : args_(args.is_object() ? args : nlohmann::json::object()) {}

const nlohmann::json* Args::find(const char* key) const {
  auto it = args_.find(key);
  return it == args_.end() || it->is_null() ? nullptr : &*it;
}

bool Args::has(const char* key) const {
  return find(key) != nullptr;
}

void Args::fail(const char* key, const char* expected) {
  if (error_.empty()) error_ = std::string("`") + key + "` must be " + expected;
}

std::string Args::string(const char* key) {
  const nlohmann::json* value = find(key);
  if (!value || !value->is_string()) {
    fail(key, "a string");
    return "";
  }
  return value->get<std::string>();
}

std::string Args::string_or(const char* key, std::string fallback) {
  return has(key) ? string(key) : fallback;
}

int64_t Args::integer_or(const char* key, int64_t fallback) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_number_integer()) {
    fail(key, "a whole number");
    return fallback;
  }
  return value->get<int64_t>();
}

uint64_t Args::count_or(const char* key, uint64_t fallback) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_number_integer() || value->get<int64_t>() < 0) {
    fail(key, "a number >= 0");
    return fallback;
  }
  return value->get<uint64_t>();
}

bool Args::boolean_or(const char* key, bool fallback) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_boolean()) {
    fail(key, "true or false");
    return fallback;
  }
  return value->get<bool>();
}

}  // namespace toolhost::server
