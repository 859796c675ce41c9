#pragma once
// Helpers of the agent-loop tests (workflow_*.cc): a chat buffer that a chat plugin fills,
// the events and host notifications a test waits on, and a barrier through the host.
// Everything waits on a message; nothing sleeps.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

using Lines = std::vector<std::string>;

// A file's whole contents, byte for byte.
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string text_of(NvimHarness& nvim, int64_t buf) {
  std::string text;
  for (const auto& line : nvim.lines(buf)) text += line + "\n";
  return text;
}

// Replaces a result's duration (it varies) so whole lines can be compared.
inline Lines normalized(Lines lines) {
  static const std::regex duration("duration=[0-9]+\\.[0-9]{2}s");
  for (auto& line : lines) line = std::regex_replace(line, duration, "duration=D");
  return lines;
}

// The buffer's text with durations replaced (normalized()).
inline std::string normalized_text(NvimHarness& nvim, int64_t buf) {
  std::string text;
  for (const auto& line : normalized(nvim.lines(buf))) text += line + "\n";
  return text;
}

// A chat buffer holding the user's question, as a chat plugin opens it (notes.txt beside it).
inline int64_t open_chat(NvimHarness& nvim, const std::string& name,
                         const std::string& question = "USER: what is in the notes?") {
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.lua("local question, name = ... vim.fn.writefile({ question }, name)",
           nlohmann::json::array({question, name}));
  nvim.command("edit " + name);
  return nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
}

// Appends the assistant's reply the way a chat plugin streams it in, then (with `done`) says
// it is complete.
inline void reply(NvimHarness& nvim, int64_t buf, const Lines& lines, bool done = true) {
  nvim.lua("local buf, lines = ... vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)",
           nlohmann::json::array({buf, lines}));
  if (done) nvim.lua("require('toolhost').assistant_done(...)", nlohmann::json::array({buf}));
}

// A reply whose chain runs a read, stops at `echo approved` (not on the allow list) and, once
// that is approved, runs `cat notes.txt`.
inline const Lines kReadEchoCat = {"ASSISTANT: Let me look.",
                                   "",
                                   "**Read:** `notes.txt`",
                                   "",
                                   "**bash**",
                                   "```bash",
                                   "echo approved",
                                   "```",
                                   "",
                                   "**bash**",
                                   "```bash",
                                   "cat notes.txt",
                                   "```"};

// A reply of the form "ASSISTANT: …" followed by one bash block per command (a command may
// hold several lines).
inline Lines bash_reply(const std::vector<std::string>& commands) {
  Lines lines = {"ASSISTANT: Let me run these."};
  for (const auto& command : commands) {
    lines.insert(lines.end(), {"", "**bash**", "```bash"});
    size_t from = 0;
    for (size_t nl; (nl = command.find('\n', from)) != std::string::npos; from = nl + 1) {
      lines.push_back(command.substr(from, nl - from));
    }
    lines.push_back(command.substr(from));
    lines.push_back("```");
  }
  return lines;
}

inline void set_cursor(NvimHarness& nvim, int row_1based) {
  nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", nlohmann::json::array({row_1based}));
}

// The 1-based row of the first line equal to `line`; 0 when there is none.
inline int row_of(NvimHarness& nvim, int64_t buf, const std::string& line) {
  Lines lines = nvim.lines(buf);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == line) return static_cast<int>(i) + 1;
  }
  return 0;
}

// Waits for a diagnostic message starting with `prefix`; returns it.
inline std::string wait_for_diagnostic(NvimHarness& nvim, const std::string& prefix) {
  for (;;) {
    nlohmann::json diags = nvim.wait_for("diagnostics");
    for (const auto& d : diags) {
      std::string message = d["message"];
      if (message.rfind(prefix, 0) == 0) return message;
    }
  }
}

inline nlohmann::json diagnostics(NvimHarness& nvim, int64_t buf) {
  return nvim.lua("return vim.diagnostic.get(...)", nlohmann::json::array({buf}));
}

// Forwards the `User {pattern}` autocmds, in the order they fire, as notification "flow"
// { name, data }, and counts them in Lua (fired()).
inline void record_events(NvimHarness& nvim, const std::vector<std::string>& patterns) {
  nvim.listen("flow");
  nvim.lua(R"(
    local chan, patterns = ...
    _G.fired = _G.fired or {}
    vim.api.nvim_create_autocmd("User", { pattern = patterns, callback = function(args)
      _G.fired[args.match] = (_G.fired[args.match] or 0) + 1
      vim.rpcnotify(chan, "flow", { name = args.match, data = vim.g.toolhost_event })
    end })
  )",
           nlohmann::json::array({nvim.channel(), patterns}));
}

// The next recorded event (record_events), whatever its name.
inline nlohmann::json next_event(NvimHarness& nvim) {
  return nvim.wait_for("flow");
}

// The next recorded event named `name`, skipping others.
inline nlohmann::json wait_event(NvimHarness& nvim, const std::string& name) {
  for (;;) {
    nlohmann::json event = nvim.wait_for("flow");
    if (event["name"] == name) return event["data"];
  }
}

// How often `User {name}` fired since record_events().
inline int fired(NvimHarness& nvim, const std::string& name) {
  return nvim.lua("return (_G.fired or {})[...] or 0", nlohmann::json::array({name})).get<int>();
}

// Every notification Lua sends the host (toolhost.idle, toolhost.run, …) is also sent to the
// test as "host_notify" { method, args } and counted (sent()).
inline void forward_host_notify(NvimHarness& nvim) {
  nvim.listen("host_notify");
  nvim.lua(R"(
    local chan = ...
    local host = require("toolhost.host")
    local notify = host.notify
    _G.sent = {}
    host.notify = function(method, args)
      _G.sent[method] = (_G.sent[method] or 0) + 1
      vim.rpcnotify(chan, "host_notify", { method = method, args = args or vim.empty_dict() })
      return notify(method, args)
    end
  )",
           nlohmann::json::array({nvim.channel()}));
}

// The args of the next `method` Lua sent the host (forward_host_notify).
inline nlohmann::json wait_host_notify(NvimHarness& nvim, const std::string& method) {
  for (;;) {
    nlohmann::json sent = nvim.wait_for("host_notify");
    if (sent["method"] == method) return sent["args"];
  }
}

inline int sent(NvimHarness& nvim, const std::string& method) {
  return nvim.lua("return (_G.sent or {})[...] or 0", nlohmann::json::array({method})).get<int>();
}

// A round trip through the host, twice: everything Lua sent it before has been handled (with
// `buf`, also what waited for the host to read that buffer) and the feedback that produced
// has been applied (the host sends a batch one loop iteration after the messages it answers).
// Returns the host's job list then (jobs.list).
inline nlohmann::json barrier(NvimHarness& nvim, int64_t buf = 0) {
  nvim.listen("barrier");
  nvim.lua(R"(
    local chan, buf = ...
    local host = require("toolhost.host")
    local first, args = "jobs.list", {}
    if buf ~= 0 then
      first, args = "toolhost.run_all_plan", { buf = buf }
    end
    host.call(first, args, function()
      host.call("jobs.list", {}, function(err, result)
        vim.rpcnotify(chan, "barrier", { err = err or vim.NIL, jobs = result and result.jobs or {} })
      end)
    end)
  )",
           nlohmann::json::array({nvim.channel(), buf}));
  nlohmann::json answer = nvim.wait_for("barrier");
  if (!answer["err"].is_null()) throw std::runtime_error("barrier: " + answer["err"].dump());
  return answer["jobs"];
}

}  // namespace toolhost::e2e
