// `toolhost mcp list|call` read the files users keep, skip a project file not accepted yet
// (saying how to accept it), and `toolhost mcp accept` shows the commands and records the answer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/mcp_command.h"
#include "cli/mcp_files.h"
#include "mcp_sh_servers.h"

namespace toolhost::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A sh server that leaves `marker` when started and lists one tool, `t`.
Json lister(const std::string& marker) {
  return {{"command", "sh"},
          {"args",
           {"-c", "touch '" + marker + "'; " + answers(R"("result":{"tools":[{"name":"t"}]})")}}};
}

class CliMcpFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);
    char name[] = "/tmp/th-cli-mcp-files-XXXXXX";
    dir_ = ::mkdtemp(name);
    root_ = dir_ + "/project";
    fs::create_directories(root_);
    fs::create_directories(dir_ + "/config/toolhost");
    std::ofstream(dir_ + "/config/toolhost/mcp.json")
        << Json{{"servers", {{"mine", lister(dir_ + "/mine-started")}}}}.dump();
    std::ofstream(root_ + "/.mcp.json")
        << Json{{"mcpServers", {{"proj", lister(dir_ + "/proj-started")}}}}.dump();
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::signal(SIGPIPE, old_sigpipe_);
  }

  McpCommand command(const std::string& server = "") {
    McpCommand command;
    command.server = server;
    command.version = "test";
    command.project_root = root_;
    command.config_home = dir_ + "/config";
    command.home = dir_ + "/home";
    command.state_dir = dir_ + "/state";
    return command;
  }
  int accept(bool yes, bool interactive, const std::string& answers) {
    McpCommand accepting = command();
    accepting.yes = yes;
    std::istringstream in(answers);
    return run_mcp_accept(accepting, in, interactive, out_, err_);
  }
  bool started(const std::string& server) { return fs::exists(dir_ + "/" + server + "-started"); }
  void clear() {
    out_.str("");
    err_.str("");
  }

  void (*old_sigpipe_)(int) = SIG_DFL;
  std::string dir_;
  std::string root_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(CliMcpFiles, ListSkipsAnUnacceptedProjectFileSayingHowToAcceptIt) {
  EXPECT_EQ(run_mcp_list(command(), out_, err_), 0) << err_.str();
  EXPECT_EQ(out_.str(), "mine: fake 1.2, MCP 2025-06-18, 1 tool\n  mine__t\n");
  EXPECT_EQ(err_.str(), "toolhost: " + root_ +
                            "/.mcp.json is not accepted yet: its MCP servers (proj) are skipped; "
                            "run `toolhost mcp accept` to see their commands and accept it\n");
  EXPECT_TRUE(started("mine"));
  EXPECT_FALSE(started("proj"));
}

TEST_F(CliMcpFiles, CallingAServerOfAnUnacceptedFileFailsNamingTheFile) {
  McpCommand calling = command("proj");
  calling.tool = "t";
  EXPECT_EQ(run_mcp_call(calling, out_, err_), 2);
  EXPECT_NE(err_.str().find("toolhost: proj is in " + root_ +
                            "/.mcp.json, which is not accepted: run `toolhost mcp accept`\n"),
            std::string::npos)
      << err_.str();
  EXPECT_FALSE(started("proj"));
}

TEST_F(CliMcpFiles, AcceptYesShowsTheCommandsAndThenTheServersStart) {
  EXPECT_EQ(accept(/*yes=*/true, /*interactive=*/false, ""), 0) << err_.str();
  EXPECT_EQ(
      out_.str().rfind(root_ + "/.mcp.json can start these MCP servers:\n  proj: sh -c 'touch", 0),
      0u)
      << out_.str();
  EXPECT_NE(out_.str().find("accepted " + root_ + "/.mcp.json\n"), std::string::npos);
  EXPECT_FALSE(started("proj"));  // accepting starts nothing
  clear();
  EXPECT_EQ(run_mcp_list(command("proj"), out_, err_), 0) << err_.str();
  EXPECT_EQ(out_.str(), "proj: fake 1.2, MCP 2025-06-18, 1 tool\n  proj__t\n");
  EXPECT_TRUE(started("proj"));
  clear();
  EXPECT_EQ(accept(true, false, ""), 0);
  EXPECT_EQ(out_.str(),
            "toolhost: nothing to accept: the project's MCP files are accepted, or "
            "start nothing\n");
}

TEST_F(CliMcpFiles, AcceptRefusesWithoutATerminalUnlessYes) {
  EXPECT_EQ(accept(/*yes=*/false, /*interactive=*/false, "y\n"), 2);
  EXPECT_NE(out_.str().find("proj: sh -c"), std::string::npos);  // the commands are shown
  EXPECT_EQ(err_.str(), "toolhost: not accepting " + root_ +
                            "/.mcp.json without a terminal to ask on: read the commands above, "
                            "then run `toolhost mcp accept --yes`\n");
  clear();
  EXPECT_EQ(run_mcp_list(command("proj"), out_, err_), 2);  // still held
}

TEST_F(CliMcpFiles, AcceptAsksAndOnlyYesAccepts) {
  EXPECT_EQ(accept(false, /*interactive=*/true, "n\n"), 1);
  EXPECT_NE(out_.str().find("Accept " + root_ + "/.mcp.json? [y/N] not accepted"),
            std::string::npos)
      << out_.str();
  clear();
  EXPECT_EQ(accept(false, true, ""), 1);  // end of input is no
  clear();
  EXPECT_EQ(accept(false, true, "y\n"), 0) << err_.str();
  EXPECT_NE(out_.str().find("accepted " + root_ + "/.mcp.json"), std::string::npos);
}

TEST_F(CliMcpFiles, AChangedFileIsSkippedAgainUntilAcceptedAgain) {
  ASSERT_EQ(accept(true, false, ""), 0);
  std::ofstream(root_ + "/.mcp.json")
      << Json{{"mcpServers", {{"proj", {{"command", "sh"}, {"args", {"-c", "exit 3"}}}}}}}.dump();
  clear();
  EXPECT_EQ(run_mcp_list(command(), out_, err_), 0);
  EXPECT_EQ(err_.str(), "toolhost: " + root_ +
                            "/.mcp.json changed since it was accepted: its MCP servers (proj) are "
                            "skipped; run `toolhost mcp accept` to see their commands and accept "
                            "it\n");
}

TEST_F(CliMcpFiles, AcceptOfAFileThatIsNotTheProjectsIsAUsageError) {
  McpCommand accepting = command();
  accepting.file = dir_ + "/config/toolhost/mcp.json";
  accepting.yes = true;
  std::istringstream in;
  EXPECT_EQ(run_mcp_accept(accepting, in, false, out_, err_), 2);
  EXPECT_EQ(err_.str(), "toolhost: " + accepting.file +
                            " is not one of this project's MCP files (" + root_ + "/.mcp.json, " +
                            root_ + "/.vscode/mcp.json)\n");
  clear();
  accepting.file = root_ + "/./.mcp.json";
  EXPECT_EQ(run_mcp_accept(accepting, in, false, out_, err_), 0) << err_.str();
  EXPECT_NE(out_.str().find("accepted " + root_ + "/.mcp.json"), std::string::npos);
}

TEST_F(CliMcpFiles, AFileThatIsNotJsonIsReportedAndTheOthersStillLoad) {
  std::ofstream(root_ + "/.mcp.json") << "{\"mcpServers\": {\"a\" \"b\"}}";
  EXPECT_EQ(run_mcp_list(command(), out_, err_), 0) << err_.str();
  EXPECT_EQ(out_.str(), "mine: fake 1.2, MCP 2025-06-18, 1 tool\n  mine__t\n");
  EXPECT_EQ(
      err_.str().rfind("toolhost: " + root_ + "/.mcp.json: not valid JSON: line 1, column", 0), 0u)
      << err_.str();
}

}  // namespace
}  // namespace toolhost::cli
