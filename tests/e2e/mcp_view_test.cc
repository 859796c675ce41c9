// :ToolMcp and the MCP servers' part of :checkhealth toolhost (SPEC 13.4), on a real Neovim and
// the real host, with the project's fake stdio server (tests/fixtures/mcp/fake_server.sh, modes
// ok, hang, exit): no Node.js needed.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/mcp_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
using WindowLines = std::vector<std::string>;

const std::string kFakeServer = TOOLHOST_FIXTURES "/mcp/fake_server.sh";

json fake_spec(const std::string& mode, json spec = json::object()) {
  spec["command"] = "sh";
  spec["args"] = {kFakeServer, mode};
  return spec;
}

json with_servers(const json& servers) {
  return json{{"mcp", {{"servers", servers}}}};
}

// The whitespace-separated columns of a line.
std::vector<std::string> columns(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  for (std::string field; in >> field;) fields.push_back(field);
  return fields;
}

// The line of server `name` in the :ToolMcp window, "" when it has none.
std::string server_row(const WindowLines& lines, const std::string& name) {
  for (const auto& line : lines) {
    if (line.rfind(name + " ", 0) == 0) return line;
  }
  return "";
}

std::string lines_text(const WindowLines& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// Waits until the window `view` ("mcp" or "mcp_log") shows lines that satisfy `done`.
WindowLines wait_mcp_view(NvimHarness& nvim, const std::string& view,
                          const std::function<bool(const WindowLines&)>& done) {
  for (;;) {
    json update = nvim.wait_for("ToolhostViewUpdated");
    if (update["view"] != view) continue;
    WindowLines lines = nvim.lines(update["buf"].get<int64_t>());
    if (done(lines)) return lines;
  }
}

// Opens :ToolMcp and waits until server `name` is in `state`; returns the window's lines.
WindowLines open_until(NvimHarness& nvim, const std::string& name, const std::string& state) {
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.command("ToolMcp");
  return wait_mcp_view(nvim, "mcp", [&](const WindowLines& lines) {
    auto fields = columns(server_row(lines, name));
    return fields.size() > 2 && fields[2] == state;
  });
}

// Puts the cursor on server `name`'s line of the current (:ToolMcp) window.
void cursor_on(NvimHarness& nvim, const std::string& name) {
  WindowLines lines = nvim.lines(0);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind(name + " ", 0) == 0) {
      nvim.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", json::array({i + 1}));
      return;
    }
  }
  FAIL() << name << " is not in the window:\n" << lines_text(lines);
}

TEST(McpView, ListsEachServerWithTransportStateProtocolToolsPidAndLastError) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")}, {"broken", fake_spec("exit")}}));
  nvim.forward_user_event("ToolhostViewUpdated");
  nvim.command("ToolMcp");
  WindowLines lines = wait_mcp_view(nvim, "mcp", [](const WindowLines& lines) {
    auto good = columns(server_row(lines, "good"));
    auto broken = columns(server_row(lines, "broken"));
    return good.size() > 2 && good[2] == "running" && broken.size() > 2 && broken[2] == "failed";
  });
  EXPECT_EQ(lines[0].rfind("toolhost MCP servers: 2", 0), 0u) << lines[0];
  EXPECT_EQ(columns(lines[1]), (std::vector<std::string>{"NAME", "TRANSPORT", "STATE", "PROTOCOL",
                                                         "TOOLS", "PID", "LAST", "ERROR"}));
  auto good = columns(server_row(lines, "good"));
  ASSERT_EQ(good.size(), 6u) << lines_text(lines);
  EXPECT_EQ(good[1], "stdio");
  EXPECT_EQ(good[3], "2025-11-25");
  EXPECT_EQ(good[4], "5");
  EXPECT_GT(std::stoi(good[5]), 0);

  std::string broken = server_row(lines, "broken");
  auto fields = columns(broken);
  ASSERT_GT(fields.size(), 6u) << broken;
  EXPECT_EQ(fields[2], "failed");
  EXPECT_EQ(fields[3], "-");
  EXPECT_EQ(fields[4], "0");
  EXPECT_EQ(fields[5], "-");
  EXPECT_NE(broken.find("exited with status 3"), std::string::npos) << broken;
  EXPECT_NE(broken.find("fake: cannot open the database"), std::string::npos)
      << "the stderr lines join the error on the server's line: " << broken;
}

// Its backoff (1 s after a first failure) may end before a loaded machine renders the window:
// the column is checked on the server entry the host gives.
TEST(McpView, AServerBackingOffSaysWhenItStartsAgainBeforeItsError) {
  NvimHarness nvim;
  json column = nvim.lua(R"(
    local problem = require("toolhost.mcp_view").format.problem
    return {
      problem({ error = "exited\nits last stderr lines:\n  boom", retry_in_ms = 1500 }),
      problem({ error = "exited", retry_in_ms = 0 }),
    }
  )");
  EXPECT_EQ(column, json::array({"retry in 2s; exited its last stderr lines: boom", "exited"}));
}

TEST(McpView, EnterShowsTheServersToolsWithTheirInputSchemaAndHidesThemAgain) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")}}));
  open_until(nvim, "good", "running");
  cursor_on(nvim, "good");
  nvim.command("execute \"normal \\<CR>\"");
  WindowLines lines =
      wait_mcp_view(nvim, "mcp", [](const WindowLines& lines) { return lines.size() > 3; });
  std::string text = lines_text(lines);
  EXPECT_NE(text.find("\n    good__echo: Echoes a message\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      annotations: {\"readOnlyHint\": true}\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      inputSchema: {\n"
                      "        \"properties\": {\"message\": {\"type\": \"string\"}},\n"
                      "        \"required\": [\"message\"],\n"
                      "        \"type\": \"object\"\n"
                      "      }\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n    good__slow: Never answers\n"), std::string::npos) << text;

  // <CR> on one of its tools' lines folds the server again.
  nvim.lua("vim.api.nvim_win_set_cursor(0, { 5, 0 })");
  nvim.command("execute \"normal \\<CR>\"");
  lines = wait_mcp_view(nvim, "mcp", [](const WindowLines& lines) { return lines.size() == 3; });
  EXPECT_EQ(columns(lines[2])[0], "good");
}

TEST(McpView, RestartGivesTheServerANewPid) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")}}));
  WindowLines lines = open_until(nvim, "good", "running");
  const std::string before = columns(server_row(lines, "good"))[5];
  cursor_on(nvim, "good");
  nvim.command("normal r");
  lines = wait_mcp_view(nvim, "mcp", [&](const WindowLines& lines) {
    auto fields = columns(server_row(lines, "good"));
    return fields.size() > 5 && fields[2] == "running" && fields[5] != before;
  });
  EXPECT_GT(std::stoi(columns(server_row(lines, "good"))[5]), 0);
}

TEST(McpView, StopLeavesTheServerStoppedWithoutAProcess) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")}}));
  open_until(nvim, "good", "running");
  cursor_on(nvim, "good");
  nvim.command("normal s");
  WindowLines lines = wait_mcp_view(nvim, "mcp", [](const WindowLines& lines) {
    auto fields = columns(server_row(lines, "good"));
    return fields.size() > 2 && fields[2] == "stopped";
  });
  EXPECT_EQ(columns(server_row(lines, "good"))[5], "-") << lines_text(lines);

  // `S` starts it again.
  nvim.command("normal S");
  wait_mcp_view(nvim, "mcp", [](const WindowLines& lines) {
    auto fields = columns(server_row(lines, "good"));
    return fields.size() > 2 && fields[2] == "running";
  });
}

TEST(McpView, LogOpensTheServersLogLinesInASplit) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")}}));
  open_until(nvim, "good", "running");
  cursor_on(nvim, "good");
  nvim.command("normal l");
  WindowLines log = wait_mcp_view(nvim, "mcp_log", [](const WindowLines&) { return true; });
  std::string text = lines_text(log);
  EXPECT_NE(text.find("started: sh\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ready: MCP 2025-11-25, 5 tool(s)\n"), std::string::npos) << text;
  EXPECT_EQ(nvim.lua("return #vim.api.nvim_list_wins()"), 3)
      << "the first window, :ToolMcp and the log";
}

TEST(McpView, AcceptWithNothingPendingSaysSoAndOtherwiseAsksTheTrustModule) {
  NvimHarness nvim;
  nvim.forward_notify();
  nvim.command("ToolMcp accept");
  json notice = nvim.wait_for("notify");
  EXPECT_NE(notice["msg"].get<std::string>().find("no project MCP file waits to be accepted"),
            std::string::npos)
      << notice;

  nvim.lua(
      R"(require("toolhost.mcp_trust").accept_pending = function() vim.g.accepted = true end)");
  nvim.command("ToolMcp accept");
  EXPECT_EQ(nvim.lua("return vim.g.accepted"), true);
}

// A project's .mcp.json written for an outside agent lists toolhost itself: the host leaves
// that server off and says why, instead of relaying a chat's calls back into this Neovim.
TEST(McpView, ToolhostsOwnServeIsLeftOffWithTheReason) {
  NvimHarness nvim(with_servers(
      {{"itself", {{"command", toolhost_binary()}, {"args", {"mcp", "serve"}}}},
       {"good", fake_spec("ok")}}));
  nvim.forward_notify();
  WindowLines lines = open_until(nvim, "good", "running");
  const std::string self = server_row(lines, "itself");
  EXPECT_NE(self.find("own `mcp serve`"), std::string::npos) << lines_text(lines);
  EXPECT_EQ(columns(self).at(5), "-") << "no process: " << self;
  for (;;) {
    json notice = nvim.wait_for("notify");
    if (notice["msg"].get<std::string>().find("mcp.servers.itself: this is toolhost's own") !=
        std::string::npos) {
      break;
    }
  }
}

std::string mcp_checkhealth(NvimHarness& nvim) { return nvim.checkhealth("toolhost"); }

TEST(McpHealth, StartsEachServerAndReportsItsToolsTheFailingOnesLogAndTheDisabled) {
  NvimHarness nvim(with_servers({{"good", fake_spec("ok")},
                                 {"stuck", fake_spec("hang", {{"startup_timeout_ms", 300}})},
                                 {"off", fake_spec("ok", {{"disabled", true}})}}));
  // The check waits for each server as long as its own startup_timeout_ms says.
  json listed = mcp_servers(nvim);
  std::map<std::string, uint64_t> timeouts;
  for (const auto& server : listed["servers"])
    timeouts[server["name"]] = server["startup_timeout_ms"];
  EXPECT_EQ(timeouts,
            (std::map<std::string, uint64_t>{{"good", 10000}, {"off", 10000}, {"stuck", 300}}));
  // Stopped first, so the check starts it and times its listing.
  nvim.lua(
      "return vim.rpcrequest(require('toolhost.host').ensure(), 'toolhost.mcp_stop', "
      "{ name = 'good' })");
  std::string report = mcp_checkhealth(nvim);
  EXPECT_NE(report.find("## toolhost: MCP servers\n"), std::string::npos) << report;
  size_t ok = report.find("OK: good: 5 tools listed in ");
  ASSERT_NE(ok, std::string::npos) << report;
  EXPECT_NE(report.find(" ms (stdio, 2025-11-25, pid ", ok), std::string::npos) << report;
  EXPECT_NE(report.find(
                "ERROR: stuck: does not start: the server did not answer initialize within 300 ms"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("- log: started: sh\n"), std::string::npos) << report;
  EXPECT_NE(report.find("WARNING: off: disabled"), std::string::npos) << report;
}

TEST(McpHealth, SaysSoWhenNoServerIsConfigured) {
  NvimHarness nvim;
  std::string report = mcp_checkhealth(nvim);
  EXPECT_NE(report.find("INFO: no MCP servers configured"), std::string::npos) << report;
}

}  // namespace
}  // namespace toolhost::e2e
