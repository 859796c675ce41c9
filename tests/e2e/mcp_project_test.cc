// MCP servers from the files users keep and over HTTP, end to end (SPEC 13.2, 13.3): a real
// Neovim, the real host and @modelcontextprotocol/server-everything (tests/mcp/node_modules;
// $TOOLHOST_MCP_NODE_MODULES points elsewhere). A project's .mcp.json starts nothing until the
// user accepted it (mcp_trust.accept_pending, its confirm() stubbed as a user's answer); a
// server setup() names by `url` runs a chat block's call over Streamable HTTP. Skipped without
// Node.js or the package.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/mcp_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// server-everything over Streamable HTTP on a free port of 127.0.0.1, until the test ends.
class HttpEverything {
 public:
  HttpEverything() {
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (bind(probe, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        getsockname(probe, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      close(probe);
      return;
    }
    port_ = ntohs(address.sin_port);
    close(probe);
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 2);
      dup2(open("/dev/null", O_WRONLY), 1);
      close(out[0]);
      setenv("PORT", std::to_string(port_).c_str(), 1);
      execlp("node", "node", everything_index().c_str(), "streamableHttp", nullptr);
      _exit(127);
    }
    close(out[1]);
    // It says so on stderr once it listens: read until then (its end means it failed).
    FILE* log = fdopen(out[0], "r");
    char line[4096];
    const std::string ready = "listening on port " + std::to_string(port_);
    while (log && fgets(line, sizeof line, log)) {
      if (std::string(line).find(ready) != std::string::npos) {
        listening_ = true;
        break;
      }
    }
    log_ = log;  // kept open: a closed pipe would end it with SIGPIPE on its next log line
  }
  ~HttpEverything() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (log_) fclose(log_);
  }
  bool listening() const { return listening_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

 private:
  int port_ = 0;
  pid_t pid_ = -1;
  FILE* log_ = nullptr;
  bool listening_ = false;
};

class McpProject : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = why_no_everything();
    if (!why.empty()) GTEST_SKIP() << why;
  }

  void wait_for_echo(NvimHarness& nvim) {
    if (!wait_for_mcp_tool(nvim, "everything__echo")) {
      FAIL() << "everything__echo never joined the tool table";
    }
  }

  // The block waits for approval, :ToolRun runs it, and its echo is written under it.
  void echo_runs_after_approval(NvimHarness& nvim, const std::string& message) {
    int64_t buf = open_chat(nvim, "echo.chat.md");
    reply(nvim, buf, json_call_block("everything__echo", {{"message", message}}));
    wait_for_diagnostic(nvim, "? everything__echo awaiting approval");
    EXPECT_EQ(barrier(nvim, buf).size(), 0u) << "nothing ran before the approval";
    set_cursor(nvim, row_of(nvim, buf, "```json") + 1);
    nvim.command("ToolRun");
    json finished = wait_event(nvim, "ToolhostJobFinished");
    EXPECT_EQ(finished["tool"], "everything__echo");
    EXPECT_EQ(finished["status"], "succeeded");
    barrier(nvim, buf);
    std::string text = text_of(nvim, buf);
    EXPECT_NE(text.find("\nEcho: " + message + "\n"), std::string::npos) << text;
  }
};

TEST_F(McpProject, AProjectServerStartsOnlyOnceItsFileIsAcceptedThenItsEchoRuns) {
  char dir[] = "/tmp/toolhost-mcp-project-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string root = dir;
  json everything = {{"command", "node"}, {"args", {everything_index(), "stdio"}}};
  std::ofstream(root + "/.mcp.json") << json{{"mcpServers", {{"everything", everything}}}}.dump();

  // setup()'s own server ("mine") runs meanwhile: accepting the file must not restart it.
  json mine = {{"servers", {{"mine", everything}}}};
  NvimHarness nvim(
      {{"auto_run", true}, {"auto_run_idle_ms", 600000}, {"root", root}, {"mcp", mine}});
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  json status = mcp_servers(nvim)["servers"];
  ASSERT_EQ(status.size(), 2u) << status.dump();
  EXPECT_EQ(status[0]["name"], "everything");
  EXPECT_EQ(status[0]["state"], "disabled");
  EXPECT_EQ(status[0]["pid"], 0);
  EXPECT_NE(status[0]["error"].get<std::string>().find("not accepted yet"), std::string::npos);
  while (mcp_servers(nvim)["servers"][1]["state"] != "running") {
    wait_event(nvim, "ToolhostToolsChanged");
  }
  const json mine_pid = mcp_servers(nvim)["servers"][1]["pid"];
  // The user heard at the start which file waits, and how to accept it.
  EXPECT_NE(nvim.lua("return vim.fn.execute('messages')")
                .get<std::string>()
                .find(".mcp.json is not accepted yet"),
            std::string::npos);

  nvim.listen("accepted");
  nvim.lua(R"(
    local chan = ...
    local trust = require("toolhost.mcp_trust")
    trust.can_ask = function() return true end
    trust.confirm = function(text) _G.asked = text return 1 end
    trust.accept_pending(function(accepted, declined, errors)
      vim.rpcnotify(chan, "accepted", { accepted = accepted, errors = errors, asked = _G.asked })
    end)
  )",
           json::array({nvim.channel()}));
  json accepted = nvim.wait_for("accepted");
  EXPECT_EQ(accepted["accepted"], json::array({root + "/.mcp.json"}));
  EXPECT_EQ(accepted["errors"], json::array());
  EXPECT_NE(accepted["asked"].get<std::string>().find(everything_index()), std::string::npos)
      << "the prompt shows the command";

  wait_for_echo(nvim);
  EXPECT_EQ(mcp_servers(nvim)["servers"][1]["pid"], mine_pid) << "an unchanged server restarted";
  echo_runs_after_approval(nvim, "from the project");
  std::filesystem::remove_all(root);
}

TEST_F(McpProject, AnHttpServerFromSetupRunsAChatBlocksCall) {
  HttpEverything server;
  ASSERT_TRUE(server.listening()) << "server-everything streamableHttp did not start";
  json mcp = {{"servers", {{"everything", {{"url", server.url()}}}}}};
  NvimHarness nvim({{"auto_run", true}, {"auto_run_idle_ms", 600000}, {"mcp", mcp}});
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostToolsChanged", "ToolhostJobFinished"});
  wait_for_echo(nvim);
  echo_runs_after_approval(nvim, "over http");
  json status = mcp_servers(nvim)["servers"];
  EXPECT_EQ(status[0]["transport"], "http");
  EXPECT_EQ(status[0]["state"], "running");
}

}  // namespace
}  // namespace toolhost::e2e
