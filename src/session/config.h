#pragma once
// The options of `setup()` that the host needs, as Lua sends them (SPEC 8).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "parse/types.h"

namespace toolhost::session {

struct Config {
  uint64_t timeout_ms = 120000;
  uint64_t max_timeout_ms = 600000;
  uint64_t kill_grace_ms = 2000;
  int max_concurrent = 4;
  std::string shell;  // empty: bash when on PATH, else sh
  size_t max_lines = 200;
  size_t stream_lines = 15;
  uint64_t stream_interval_ms = 100;
  uint64_t log_max_bytes = 64ull * 1024 * 1024;
  size_t history_max = 500;
  parse::RoleNames roles;
};

// Reads what is present in `options`; absent keys keep their defaults. Throws
// nlohmann::json::exception on a value of the wrong type (Lua validated it already).
Config config_from_json(const nlohmann::json& options);

// `bash` when it is on PATH, else `sh` (SPEC 6: never $SHELL or 'shell').
std::string default_shell();

}  // namespace toolhost::session
