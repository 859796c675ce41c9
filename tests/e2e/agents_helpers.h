#pragma once
// What the agents_*.cc tests share: the registry a host publishes in, the host's pid, and the
// agent's buffer in Neovim.

#include <sys/stat.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "e2e/agent_process.h"
#include "e2e/chat_helpers.h"

namespace toolhost::e2e {

// Where the hosts of `nvim`'s environment publish themselves: $XDG_RUNTIME_DIR/toolhost.
inline std::string registry_dir(const NvimHarness& nvim) {
  const std::string name = "XDG_RUNTIME_DIR=";
  for (const auto& variable : nvim.environment()) {
    if (variable.rfind(name, 0) == 0) return variable.substr(name.size()) + "/toolhost";
  }
  throw std::runtime_error("this Neovim has no XDG_RUNTIME_DIR");
}

// Starts the host, which then serves agents: after the round trip it has handled the
// toolhost.serve_agents Lua sent first. Returns its pid.
inline int start_host(NvimHarness& nvim) {
  barrier(nvim);
  return nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())").get<int>();
}

// The first line of claude-code's agent buffer.
inline const std::string kClaudeCodeIntro =
    "USER: claude-code is connected through `toolhost mcp serve`; its calls follow.";

// A project holding notes.txt ("buy milk"), its host started.
inline void start_project_with_notes(NvimHarness& nvim) {
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  start_host(nvim);
}

inline std::string entry_path(const std::string& dir, int pid) {
  return dir + "/" + std::to_string(pid) + ".json";
}

// The permission bits of `path` (without following a symlink); -1 when it does not exist.
inline int mode_of(const std::string& path, bool* is_socket = nullptr) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return -1;
  if (is_socket) *is_socket = S_ISSOCK(info.st_mode);
  return static_cast<int>(info.st_mode & 07777);
}

inline std::string cwd_of(NvimHarness& nvim) {
  return nvim.lua("return vim.fn.getcwd()").get<std::string>();
}

// The buffer `toolhost://agent/{client}`; 0 when there is none.
inline int64_t agent_buffer(NvimHarness& nvim, const std::string& client) {
  return nvim
      .lua(R"(
    local name = "toolhost://agent/" .. ...
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(buf) == name then return buf end
    end
    return 0
  )",
           nlohmann::json::array({client}))
      .get<int64_t>();
}

// The windows of the current tab that show `buf`.
inline int windows_showing(NvimHarness& nvim, int64_t buf) {
  return nvim
      .lua(R"(
    local buf, count = ..., 0
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if vim.api.nvim_win_get_buf(win) == buf then count = count + 1 end
    end
    return count
  )",
           nlohmann::json::array({buf}))
      .get<int>();
}

// An agent of `nvim`'s project, handshaken as `client`.
inline std::unique_ptr<AgentProcess> connect_agent(NvimHarness& nvim, const std::string& client,
                                                   const std::string& cwd = "") {
  auto agent = std::make_unique<AgentProcess>(nvim, cwd);
  agent->initialize(client);
  return agent;
}

// Waits until Neovim knows of a call awaiting approval (the host's batch saying so comes
// after the call's notice); throws after 10 s.
inline void wait_awaiting(NvimHarness& nvim) {
  if (!nvim.lua("return vim.wait(10000, function() "
                "return require('toolhost.ui').awaiting_count() > 0 end, 5)")
           .get<bool>()) {
    throw std::runtime_error("no call awaits approval");
  }
}

// The next "notify" (NvimHarness::forward_notify) whose message holds `text`; its message.
inline std::string wait_notify_with(NvimHarness& nvim, const std::string& text) {
  for (;;) {
    nlohmann::json notify = nvim.wait_for("notify");
    std::string message = notify["msg"];
    if (message.find(text) != std::string::npos) return message;
  }
}

}  // namespace toolhost::e2e
