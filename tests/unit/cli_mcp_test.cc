// `toolhost mcp list` and `toolhost mcp call` against small sh scripts playing MCP servers
// (the client's request ids: 1 initialize, 2 the next request): exit codes and messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/mcp_command.h"
#include "mcp_sh_servers.h"

namespace toolhost::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

class CliMcp : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ =
        std::signal(SIGPIPE, SIG_IGN);  // restored: the commands ignore it as toolhost does
    char name[] = "/tmp/th-cli-mcp-XXXXXX";
    dir_ = ::mkdtemp(name);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::signal(SIGPIPE, old_sigpipe_);
  }

  // Writes a config with one server per (name, sh script) and returns its path.
  std::string config(const Json& servers) {
    std::string path = dir_ + "/config.json";
    std::ofstream(path) << Json{{"mcp", {{"servers", servers}}}}.dump();
    return path;
  }
  static Json sh(const std::string& script) {
    return {{"command", "sh"}, {"args", {"-c", script}}};
  }
  // Its files are the test's own: no user's ~/.config, no project but the test's.
  McpCommand hermetic(const std::string& config_file, const std::string& server,
                      const std::string& tool = "", const std::string& arguments = "") {
    McpCommand command;
    command.config_file = config_file;
    command.server = server;
    command.tool = tool;
    command.arguments = arguments;
    command.version = "test";
    command.project_root = dir_ + "/project";
    command.config_home = dir_ + "/config";
    command.home = dir_ + "/home";
    command.state_dir = dir_ + "/state";
    return command;
  }
  int list(const std::string& server, const Json& servers) {
    return run_mcp_list(hermetic(config(servers), server), out_, err_);
  }
  int call(const std::string& tool, const std::string& arguments, const Json& servers) {
    return run_mcp_call(hermetic(config(servers), "fake", tool, arguments), out_, err_);
  }

  void (*old_sigpipe_)(int) = SIG_DFL;
  std::string dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(CliMcp, ListPrintsTheServerAndItsToolsByTheirToolhostNames) {
  Json servers = {{"fake", sh(answers(R"("result":{"tools":[{"name":"echo","description":)"
                                      R"("Says it back\nat length"},{"name":"a b"}]})"))}};
  EXPECT_EQ(list("", servers), 0) << err_.str();
  EXPECT_EQ(out_.str(),
            "fake: fake 1.2, MCP 2025-06-18, 2 tools\n"
            "  fake__echo  Says it back\n"
            "  fake__a_b\n");
}

TEST_F(CliMcp, ListReportsEachServerThatFailsAndListsTheOthers) {
  Json servers = {{"fake", sh(answers(R"("result":{"tools":[{"name":"t"}]})"))},
                  {"broken", sh("echo 'no such module' >&2; exit 1")},
                  {"off", {{"command", "x"}, {"disabled", true}}},
                  {"web", {{"url", "http://127.0.0.1:1/mcp"}}}};  // nothing listens there
  EXPECT_EQ(list("", servers), 2);
  EXPECT_EQ(out_.str(), "fake: fake 1.2, MCP 2025-06-18, 1 tool\n  fake__t\n");
  std::string web = "toolhost: web: initialize failed: cannot reach http://127.0.0.1:1/mcp: ";
  EXPECT_EQ(err_.str().substr(0, err_.str().find(web)),
            "toolhost: broken: connection closed: the server exited with status 1; its last "
            "stderr lines:\nno such module\n"
            "toolhost: off is disabled\n");
  EXPECT_NE(err_.str().find(web), std::string::npos) << err_.str();
}

TEST_F(CliMcp, CallPrintsTheResultsTextAndExitsZero) {
  Json servers = {{"fake", sh(answers(R"("result":{"content":[{"type":"text","text":"hi"}]})"))}};
  EXPECT_EQ(call("echo", R"({"message":"hi"})", servers), 0) << err_.str();
  EXPECT_EQ(out_.str(), "hi\n");
}

TEST_F(CliMcp, AnIsErrorResultExitsOne) {
  Json servers = {{"fake", sh(answers(R"("result":{"content":[{"type":"text","text":"bad a"}],)"
                                      R"("isError":true})"))}};
  EXPECT_EQ(call("sum", "", servers), 1);
  EXPECT_EQ(out_.str(), "bad a\n");
}

TEST_F(CliMcp, AnErrorTheServerAnswersExitsOne) {
  Json servers = {{"fake", sh(answers(R"("error":{"code":-32602,"message":"unknown tool: x"})"))}};
  EXPECT_EQ(call("x", "", servers), 1);
  EXPECT_EQ(err_.str(), "toolhost: fake: x: unknown tool: x\n");
}

TEST_F(CliMcp, AServerThatDiesDuringTheCallExitsTwoSayingHow) {
  Json servers = {{"fake", sh(handshake() + "read -r l; echo 'segfault in tool' >&2; kill -9 $$")}};
  EXPECT_EQ(call("x", "", servers), 2);
  EXPECT_EQ(err_.str(),
            "toolhost: fake: x: connection closed: the server was killed by signal 9 (Killed); "
            "its last stderr lines:\nsegfault in tool\n");
}

TEST_F(CliMcp, UsageAndConfigurationErrorsExitTwo) {
  Json servers = {{"fake", sh("exit 0")}, {"web", {{"url", "ftp://example.com/mcp"}}}};
  EXPECT_EQ(call("x", "[1]", servers), 2);
  EXPECT_EQ(err_.str(), "toolhost: the arguments must be a JSON object, as {\"message\":\"hi\"}\n");
  err_.str("");
  EXPECT_EQ(list("nowhere", servers), 2);
  EXPECT_EQ(err_.str(), "toolhost: no MCP server named \"nowhere\" (configured: fake, web)\n");
  err_.str("");
  EXPECT_EQ(list("web", servers), 2);
  EXPECT_EQ(err_.str(), "toolhost: web: not an http:// or https:// URL: ftp://example.com/mcp\n");
  err_.str("");
  EXPECT_EQ(run_mcp_call(hermetic("", "fake", "x"), out_, err_), 2);
  EXPECT_EQ(err_.str(),
            "toolhost: no MCP servers configured: give --config FILE.json with mcp.servers, or "
            "write ~/.config/toolhost/mcp.json or the project's .mcp.json (:help "
            "toolhost-mcp-config)\n");
}

}  // namespace
}  // namespace toolhost::cli
