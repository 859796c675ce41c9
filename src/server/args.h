#pragma once
// Reads the one table a method gets from Lua or another client. Wrong types never throw: the
// first problem is kept, and the method answers it as its error.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace toolhost::server {

class Args {
 public:
  explicit Args(const nlohmann::json& args);

  bool has(const char* key) const;
  // A required string; "" and an error when it is absent or not a string.
  std::string string(const char* key);
  std::string string_or(const char* key, std::string fallback);
  int64_t integer_or(const char* key, int64_t fallback);
  // A whole number >= 0, or `fallback` when absent or null.
  uint64_t count_or(const char* key, uint64_t fallback);
  bool boolean_or(const char* key, bool fallback);
  const nlohmann::json& raw() const { return args_; }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  const nlohmann::json* find(const char* key) const;
  void fail(const char* key, const char* expected);

  nlohmann::json args_;
  std::string error_;
};

}  // namespace toolhost::server
