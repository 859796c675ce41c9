#pragma once
// The options of `setup()` that the host reads (SPEC 8), with their defaults. Lua validates
// them and sends them as JSON; `toolhost --print-config` prints these defaults so a test can
// hold lua/toolhost/config.lua's schema to them.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/custom_tool.h"
#include "core/result.h"
#include "core/roles.h"

namespace toolhost::core {

// The defaults, for the layers whose own option structs mirror a part of Config.
namespace defaults {
constexpr uint64_t kTimeoutMs = 120000;
constexpr uint64_t kMaxTimeoutMs = 600000;
constexpr uint64_t kKillGraceMs = 2000;
constexpr int kMaxConcurrent = 4;
// Jobs run below the editor: under a CPU flood Neovim answers as if idle (SPEC 9, P1).
constexpr int kJobNice = 10;
constexpr int kMaxNice = 19;
constexpr size_t kMaxLines = 200;
constexpr size_t kStreamLines = 15;
constexpr uint64_t kStreamIntervalMs = 100;
constexpr uint64_t kLogMaxBytes = 64ull * 1024 * 1024;
constexpr size_t kHistoryMax = 500;
// Per call's quickfix list (issue #39): a compiler that prints more is cut there, and the list
// ends with the path of the full log.
constexpr size_t kQuickfixMaxItems = 1000;
constexpr size_t kQuickfixMaxFiles = 300;
}  // namespace defaults

struct OutputConfig {
  size_t max_lines = defaults::kMaxLines;  // per result block, both streams together
  size_t stream_lines = defaults::kStreamLines;
  uint64_t stream_interval_ms = defaults::kStreamIntervalMs;
  // Code points shown of each streamed line (Lua sends Neovim's 'columns'); 0 = 500, as in
  // result blocks. Wider than the window is never seen, and costs Neovim time at every update.
  size_t stream_width = 0;
  uint64_t log_max_bytes = defaults::kLogMaxBytes;
};

// An entry of `allow.commands` (SPEC 7): `"git log"` or `{ "git log", deny = { "--output" } }`,
// literal words, no patterns; sent by Lua as `{ "words": "git log", "deny": [...] }`.
struct AllowEntry {
  std::vector<std::string> words;
  std::vector<std::string> deny;  // options the command may not carry (`--pre`, `-c`)
  // `sandbox = false`: it runs unasked outside the sandbox, as before the sandbox (issue #38).
  bool sandbox = true;
  // `network = true`: sandboxed with the network on (package installs, fetches).
  bool network = false;
};

// Where a command that runs unasked runs (issue #38, |toolhost-sandbox|).
enum class SandboxMode { Auto, Off };
struct SandboxConfig {
  // `sandbox`: "auto" runs every terminal command auto-run starts in the kernel sandbox when
  // it is available (on or off the allow-list); "off" keeps the allow-list rule alone.
  SandboxMode mode = SandboxMode::Auto;
  bool approved = false;              // `sandbox_approved`: what you approve runs sandboxed too
  std::vector<std::string> writable;  // `sandbox_writable`: more writable roots (build caches)
  std::optional<std::vector<std::string>> secrets;  // `sandbox_secrets`: unset = the defaults
  // Not an option: absolute paths no sandboxed command may read either, set by the host and the
  // CLI, which know toolhost's own secrets (the MCP sign-in records in the state dir).
  std::vector<std::string> hidden;
};

// `quickfix` (|toolhost-quickfix|): build and test output into a quickfix list per call and
// diagnostics. `diagnostics` is Lua's (it sets them); the host sends it along in each update.
struct QuickfixConfig {
  bool enabled = true;
  bool diagnostics = true;
  size_t max_items = defaults::kQuickfixMaxItems;
  size_t max_files = defaults::kQuickfixMaxFiles;
  // `commands`: a command's first word -> its format, over the built-in map.
  std::vector<std::pair<std::string, QuickfixFormat>> commands;
};

struct Config {
  uint64_t timeout_ms = defaults::kTimeoutMs;  // 0 = none
  uint64_t max_timeout_ms = defaults::kMaxTimeoutMs;
  uint64_t kill_grace_ms = defaults::kKillGraceMs;
  int max_concurrent = defaults::kMaxConcurrent;
  int job_nice = defaults::kJobNice;  // added to the host's nice for every job, 0..19
  std::string shell;  // empty: bash when on PATH, else sh (resolved by config_from_json)
  OutputConfig output;
  size_t history_max = defaults::kHistoryMax;
  RoleNames roles;
  // What auto-run may run without asking (SPEC 7): unset means the built-in read-only list.
  std::optional<std::vector<AllowEntry>> allow_commands;
  bool auto_accept_edits = false;
  std::vector<CustomTool> tools;
  SandboxConfig sandbox;
  QuickfixConfig quickfix;
};

// Reads what is present in `options` over the defaults; absent or null keys keep them. A value
// of the wrong type is an error naming its key (`output.max_lines: expected a number >= 0`).
Result<Config> config_from_json(const nlohmann::json& options);

// The options as setup() names them; an empty shell is left out (Lua's nil).
nlohmann::json config_to_json(const Config& config);

// `bash` when it is on PATH, else `sh` (SPEC 6: never $SHELL or 'shell').
std::string default_shell();
// Whether an executable `program` is in one of $PATH's directories.
bool on_path(const std::string& program);

}  // namespace toolhost::core
