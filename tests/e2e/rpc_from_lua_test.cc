// RPC from Lua with wrong argument types (issue #19): every method the host serves, called by
// vim.rpcrequest / vim.rpcnotify and through the asynchronous bridge (toolhost.call) with nil,
// numbers for strings, huge and odd numbers, nested and deep tables, invalid UTF-8, missing and
// extra arguments, plus unknown methods. Each request gets an answer (an error where the type
// is wrong), each notification at most a message; the host keeps its pid, still answers, and
// the job that runs meanwhile finishes as if nothing happened.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// The methods of src/server/host.cc's table, with the keys each reads.
const json kMethods = {
    {"toolhost.ping", json::array()},
    {"toolhost.setup",
     {"timeout_ms", "max_concurrent", "shell", "output", "roles", "allow", "tools",
      "auto_accept_edits", "history_max"}},
    {"toolhost.attach", {"buf", "root", "name", "filetype", "auto_run", "run_key", "reject_key"}},
    {"toolhost.detach", {"buf"}},
    {"toolhost.run", {"buf", "row", "force", "call_id"}},
    {"toolhost.cancel", {"buf", "row", "id"}},
    {"toolhost.reject", {"buf", "row", "reason"}},
    {"toolhost.run_all", {"buf", "ids", "parallel"}},
    {"toolhost.run_all_plan", {"buf"}},
    {"toolhost.assistant_done", {"buf"}},
    {"toolhost.idle", {"buf", "first_row"}},
    {"toolhost.submit", {"buf", "id", "name", "arguments", "row", "end_row", "write_result"}},
    {"jobs.rerun", {"id"}},
    {"jobs.list", {"status", "limit"}},
    {"jobs.get", {"id"}},
    {"jobs.output", {"id", "since", "max_bytes"}},
    {"jobs.cancel", {"id"}},
};

// Lua: the hostile values (a function of the chat buffer, so that a value is never a valid
// buffer number by accident), and the argument lists tried for every method.
constexpr const char* kValues = R"(
  local function deep(n)
    local t = {}
    for _ = 1, n do t = { t } end
    return t
  end
  local wide = {}
  for i = 1, 10000 do wide[i] = i end
  _G.hostile_values = {
    vim.NIL, true, false, 0, -1, 1.5, -0.5, 2^31 - 1, -2^31, 2^31, 2^53, 2^62, -2^62, 2^64,
    1e300, -1e300, 1/0, -1/0, 0/0, "", "x", "\255\254\253", "a\0b", string.rep("y", 100000),
    {}, vim.empty_dict(), { 1, 2, 3 }, { a = { b = { c = {} } } }, { ["\255"] = "\255" },
    deep(20), deep(200), deep(1000), wide, { "th-1" },
  }
)";

constexpr const char* kFuzz = R"(
  local chan, buf, methods = ...
  local values = _G.hostile_values
  local stats = { requests = 0, errors = 0, notifications = 0, empty_errors = {}, dead = vim.NIL }
  local function request(method, ...)
    stats.requests = stats.requests + 1
    local ok, err = pcall(vim.rpcrequest, chan, method, ...)
    if not ok then
      stats.errors = stats.errors + 1
      if tostring(err) == "" then table.insert(stats.empty_errors, method) end
    end
    return ok, err
  end
  local function alive(after)
    local ok, pong = pcall(vim.rpcrequest, chan, "toolhost.ping")
    if not ok or type(pong) ~= "table" then
      stats.dead = after .. ": " .. tostring(pong)
      return false
    end
    return true
  end
  local function try(method, ...)
    request(method, ...)
    stats.notifications = stats.notifications + 1
    pcall(vim.rpcnotify, chan, method, ...)
  end
  for method, keys in pairs(methods) do
    -- Whole argument lists: none, nil, a scalar, an invalid string, extra arguments.
    for i, value in ipairs(values) do
      try(method, value)
      if not alive(method .. " with argument #" .. i) then return stats end
    end
    try(method)
    try(method, {}, 1, "extra", { "more" })
    if method ~= "toolhost.detach" then try(method, { buf = buf }, vim.NIL, "\255") end
    -- Each key the method reads, wrong: alone and next to the chat buffer.
    for _, key in ipairs(keys) do
      for i, value in ipairs(values) do
        try(method, { [key] = value })
        if key ~= "buf" then try(method, { buf = buf, [key] = value }) end
        if not alive(method .. " with " .. key .. " = value #" .. i) then return stats end
      end
    end
  end
  for _, method in ipairs({ "no.such.method", "", "\255\254", string.rep("m", 10000), "toolhost.call",
                            "toolhost.done", "nvim_command" }) do
    local ok = request(method, {})
    if ok and method ~= "toolhost.call" and method ~= "toolhost.done" then
      stats.unknown_answered = method
    end
    pcall(vim.rpcnotify, chan, method, { "qa!" })
  end
  alive("unknown methods")
  -- Back to the user's options: a wrong-typed table is refused, but a right-typed odd one
  -- (shell = "x") was taken.
  vim.rpcnotify(chan, "toolhost.setup", require("toolhost.config").for_host())
  return stats
)";

// Through host.call (the bridge Lua uses): every call gets its callback, error or result.
constexpr const char* kBridge = R"(
  local chan, buf, methods = ...
  local host = require("toolhost.host")
  local values = _G.hostile_values
  local sent, answered, errors = 0, 0, 0
  _G.unanswered = {}
  local function call(method, args)
    sent = sent + 1
    local n = sent
    _G.unanswered[n] = method .. " " .. vim.inspect(args):sub(1, 80)
    host.call(method, args, function(err)
      _G.unanswered[n] = nil
      answered = answered + 1
      if err then errors = errors + 1 end
      if answered == sent then
        vim.rpcnotify(chan, "bridge_done", { sent = sent, errors = errors })
      end
    end)
  end
  for method, keys in pairs(methods) do
    if method ~= "toolhost.detach" and method ~= "toolhost.setup" then
      for _, key in ipairs(keys) do
        for _, value in ipairs(values) do
          call(method, { buf = key == "buf" and value or buf, [key] = value })
        end
      end
    end
    for _, value in ipairs(values) do call(method, value) end
  end
  call("no.such.method", {})
  -- Raw bridge and done messages with hostile fields: nobody waits on those.
  for _, value in ipairs(values) do
    vim.rpcnotify(chan, "toolhost.call", { token = value, method = value, args = value })
    vim.rpcnotify(chan, "toolhost.call", value)
    vim.rpcnotify(chan, "toolhost.done", { token = value, error = value, result = value })
    vim.rpcnotify(chan, "toolhost.done", value)
  end
  return sent
)";

TEST(RpcFromLua, WrongArgumentTypesGetErrorsAndNeverDisturbTheHostOrARunningJob) {
  NvimHarness nvim;
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  // Messages and questions (a fuzzed toolhost.run may land on a finished call: "run it
  // again?") are counted, never shown: a prompt would wait for a key.
  nvim.lua(R"(
    _G.notified, _G.asked = 0, 0
    vim.notify = function() _G.notified = _G.notified + 1 end
    vim.ui.select = function(_, _, on_choice) _G.asked = _G.asked + 1 on_choice(nil) end
  )");
  int64_t buf = open_chat(nvim, "rpc.chat.md");
  // A job that runs until the test says so, then prints a line only it prints.
  reply(nvim, buf, bash_reply({"while [ ! -e go ]; do sleep 0.02; done; echo still-running-fine"}),
        false);
  set_cursor(nvim, row_of(nvim, buf, "```bash") + 1);
  nvim.command("ToolRun");
  std::string job = wait_event(nvim, "ToolhostJobStarted")["id"];
  int64_t chan = nvim.lua("return require('toolhost.host').channel()");
  int64_t pid = nvim.lua("return vim.fn.jobpid(...)", json::array({chan}));

  nvim.lua(kValues);
  // Thousands of requests in one Lua call: the instrumented host under a loaded ctest took
  // over 20 s (the deadline guards against a hang, not a speed).
  json stats = nvim.lua(kFuzz, json::array({chan, buf, kMethods}), std::chrono::seconds(120));
  EXPECT_TRUE(stats["dead"].is_null()) << "the host stopped answering after " << stats["dead"];
  EXPECT_EQ(stats["empty_errors"], json::array()) << stats.dump();
  EXPECT_FALSE(stats.contains("unknown_answered")) << stats.dump();
  EXPECT_GT(stats["errors"].get<int>(), stats["requests"].get<int>() / 2) << stats.dump();
  std::cout << "[ figures  ] " << stats["requests"] << " requests (" << stats["errors"]
            << " errors), " << stats["notifications"] << " notifications\n";

  nvim.listen("bridge_done");
  int sent = nvim.lua(kBridge, json::array({nvim.channel(), buf, kMethods}));
  json bridged;
  try {
    bridged = nvim.wait_for("bridge_done", std::chrono::seconds(60));
  } catch (const std::exception&) {
    FAIL() << "unanswered host.call()s: "
           << nvim.lua("return vim.tbl_values(_G.unanswered)")
                  .dump(-1, ' ', false, json::error_handler_t::replace);
  }
  EXPECT_EQ(bridged["sent"], sent);
  EXPECT_GT(bridged["errors"].get<int>(), 0);

  // The same host, still serving, the buffer still attached; the job ran undisturbed.
  EXPECT_EQ(nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())"), pid);
  EXPECT_EQ(nvim.lua("return vim.rpcrequest(...)['pid']", json::array({chan, "toolhost.ping"})),
            pid);
  std::ofstream(nvim.temp_dir() + "/go") << "go\n";
  json finished;
  do {  // fuzzed toolhost.submit calls were refused: finished jobs of their own
    finished = wait_event(nvim, "ToolhostJobFinished");
  } while (finished["id"] != job);
  EXPECT_EQ(finished["status"], "succeeded");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(
      text.find("````result id=" + job + " tool=run_terminal_command status=succeeded exit=0"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("Stdout:\nstill-running-fine\n````"), std::string::npos) << text;
  barrier(nvim, buf);  // the buffer is still attached (an error otherwise)
}

}  // namespace
}  // namespace toolhost::e2e
