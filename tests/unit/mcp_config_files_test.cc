// The MCP server files users already keep (toolhost's, mcphub's, Claude Code's .mcp.json, VS
// Code's .vscode/mcp.json), read from fixtures in their real formats, and how they merge.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "mcp/config_files.h"

namespace toolhost::mcp {
namespace {

using Json = nlohmann::json;

Lookup file_environment() {
  static const std::map<std::string, std::string> vars{{"DOCS_HOST", "docs.example.com"},
                                                       {"DOCS_TOKEN", "t0k"},
                                                       {"DB_PASSWORD", "pw"},
                                                       {"API_KEY", "k3y"},
                                                       {"LOG_LEVEL", ""}};
  return [](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const Places kPlaces{"/home/u/.config", "/home/u", "/work/proj"};

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TOOLHOST_FIXTURES) + "/mcp_config/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

FileServers read(const std::string& name, FileFormat format, bool project) {
  return read_config_text({"/f/" + name, format, project}, fixture(name), kPlaces,
                          file_environment());
}

const ServerConfig& server(const FileServers& file, const std::string& name) {
  for (const auto& config : file.servers) {
    if (config.name == name) return config;
  }
  static ServerConfig none;
  ADD_FAILURE() << "no server " << name;
  return none;
}

TEST(McpConfigFiles, TheFilesAreTheUsersThenTheProjectsInPrecedenceOrder) {
  std::vector<ConfigFile> files = config_files(kPlaces);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].path, "/home/u/.config/toolhost/mcp.json");
  EXPECT_EQ(files[1].path, "/home/u/.config/mcphub/servers.json");
  EXPECT_EQ(files[2].path, "/work/proj/.mcp.json");
  EXPECT_EQ(files[3].path, "/work/proj/.vscode/mcp.json");
  EXPECT_FALSE(files[1].project);
  EXPECT_TRUE(files[2].project && files[3].project);
  EXPECT_EQ(config_files({"/c", "/h", ""}).size(), 2u);  // no project root: no project files
}

TEST(McpConfigFiles, ToolhostsOwnFileHasEverySetupKey) {
  FileServers file = read("toolhost_mcp.json", FileFormat::kToolhost, false);
  ASSERT_EQ(file.error, "");
  const ServerConfig& everything = server(file, "everything");
  EXPECT_EQ(everything.error, "");
  EXPECT_EQ(everything.source, "/f/toolhost_mcp.json");
  EXPECT_EQ(everything.stdio.args,
            (std::vector<std::string>{"-y", "@modelcontextprotocol/server-everything"}));
  EXPECT_EQ(everything.auto_approve, std::vector<std::string>{"echo"});
  EXPECT_TRUE(everything.trusted);
  EXPECT_EQ(everything.timeout_ms, 120000u);
  EXPECT_EQ(everything.stdio.cwd, "");  // a user file's server runs where toolhost runs
  const ServerConfig& docs = server(file, "docs");
  EXPECT_EQ(docs.url, "https://docs.example.com/mcp");
  EXPECT_EQ(docs.headers.at(0).second, "Bearer t0k");
  EXPECT_TRUE(docs.discover_first);
}

TEST(McpConfigFiles, McphubsOwnKeysMapToOursAndItsCommandPlaceholdersNeverRun) {
  FileServers file = read("mcphub_servers.json", FileFormat::kMcphub, false);
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.servers.size(), 3u);  // nativeMCPServers are mcphub's Lua servers: not ours
  const ServerConfig& fetch = server(file, "fetch");
  EXPECT_EQ(fetch.error, "");
  EXPECT_EQ(fetch.auto_approve, std::vector<std::string>{"fetch"});
  EXPECT_EQ(fetch.disabled_tools, std::vector<std::string>{"expensive-tool"});
  // "" and null mean "from the environment" in mcphub: the server inherits toolhost's.
  ASSERT_EQ(fetch.stdio.env.size(), 1u);
  EXPECT_EQ(fetch.stdio.env[0],
            (std::pair<std::string, std::string>{"DB_URL", "postgresql://user:pw@localhost/app"}));
  const ServerConfig& remote = server(file, "remote-server");
  EXPECT_TRUE(remote.auto_approve_all);
  EXPECT_TRUE(remote.disabled);
  EXPECT_EQ(server(file, "secret").error,
            "a value made by running a command (mcphub's ${cmd: ...}) is never run by toolhost: "
            "put the value in the environment and write ${env:NAME}");
}

TEST(McpConfigFiles, ClaudeCodesFileHasTypesDefaultsAndRunsInTheProject) {
  FileServers file = read("claude_mcp.json", FileFormat::kClaudeCode, true);
  ASSERT_EQ(file.error, "");
  const ServerConfig& local = server(file, "local-tools");
  EXPECT_EQ(local.error, "");
  EXPECT_EQ(local.stdio.args,
            (std::vector<std::string>{"./tools/server.js", "--root", "/work/proj"}));
  EXPECT_EQ(local.stdio.env.at(0).second, "info");  // ${LOG_LEVEL:-info} with LOG_LEVEL empty
  EXPECT_EQ(local.stdio.cwd, "/work/proj");
  const ServerConfig& api = server(file, "api-server");
  EXPECT_EQ(api.error, "");
  EXPECT_EQ(api.url, "https://api.example.com/mcp");
  EXPECT_EQ(server(file, "legacy").error.rfind("type \"sse\" is the old HTTP+SSE transport", 0),
            0u);
  EXPECT_EQ(file.entries.begin().key(), "mcpServers");
}

TEST(McpConfigFiles, VsCodesFileWithCommentsTrailingCommasAndInputs) {
  FileServers file = read("vscode_mcp.json", FileFormat::kVsCode, true);
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.servers.size(), 3u);
  EXPECT_EQ(server(file, "Perplexity").error,
            "${input:perplexity-key} (Perplexity API Key) is a value VS Code asks for, which "
            "toolhost cannot: put it in the environment and write ${env:NAME}");
  const ServerConfig& fs = server(file, "fs");
  EXPECT_EQ(fs.stdio.cwd, "/work/proj/sub");
  EXPECT_EQ(fs.error,
            "envFile is not read by toolhost: put the variables in env, or in the environment");
  EXPECT_EQ(server(file, "github").url, "https://api.githubcopilot.com/mcp/");
  EXPECT_EQ(server(file, "github").error, "");
}

TEST(McpConfigFiles, AFileThatIsNotJsonNamesTheLineAndHasNoServers) {
  FileServers file = read_config_text({"/p/.mcp.json", FileFormat::kClaudeCode, true},
                                      "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n"
                                      "    \"b\": {}\n  }\n}\n",
                                      kPlaces, file_environment());
  EXPECT_EQ(file.error,
            "not valid JSON: line 4, column 7: syntax error while parsing object - unexpected "
            "string literal; expected '}'");
  EXPECT_TRUE(file.servers.empty());
  FileServers array = read_config_text({"/p/.mcp.json", FileFormat::kClaudeCode, true}, "[1]",
                                       kPlaces, file_environment());
  EXPECT_EQ(array.error, "expected a JSON object");
  FileServers empty = read_config_text({"/p/.mcp.json", FileFormat::kClaudeCode, true}, " \n",
                                       kPlaces, file_environment());
  EXPECT_EQ(empty.error, "");
  EXPECT_TRUE(empty.servers.empty());
}

TEST(McpConfigFiles, JsoncLosesCommentsAndTrailingCommasButNotLinesOrStrings) {
  EXPECT_EQ(strip_jsonc("{\"a\": \"//x,}\", // c\n\"b\": [1,],/* y\n */}"),
            "{\"a\": \"//x,}\",     \n\"b\": [1 ]     \n   }");
  EXPECT_EQ(Json::parse(strip_jsonc("{\"a\": \"//x,}\", // c\n\"b\": [1,],/* y\n */}")),
            Json::parse(R"({"a": "//x,}", "b": [1]})"));
}

TEST(McpConfigFiles, AVariableThatIsNotSetIsThatServersError) {
  FileServers file = read_config_text({"/p/.mcp.json", FileFormat::kClaudeCode, true},
                                      R"({"mcpServers": {"a": {"command": "${NOPE}"},
                                          "b": {"command": "${NOPE:-fallback}"}}})",
                                      kPlaces, file_environment());
  EXPECT_EQ(server(file, "a").error, "command: ${NOPE} is not set in the environment");
  EXPECT_EQ(server(file, "b").stdio.command, "fallback");
}

TEST(McpConfigFiles, SetupWinsThenUserFilesThenTheProjectAndEveryLoserIsReported) {
  ServersConfig setup;
  ServerConfig mine;
  mine.name = "git";
  mine.stdio.command = "my-git-server";
  setup.servers.push_back(mine);
  auto file = [](const std::string& path, bool project, const std::string& servers) {
    return read_config_text({path, FileFormat::kClaudeCode, project},
                            R"({"mcpServers": )" + servers + "}", kPlaces, file_environment());
  };
  Configured configured = merge_servers(
      setup, {file("/home/u/.config/toolhost/mcp.json", false,
                   R"({"git": {"command": "a"}, "docs": {"command": "user-docs"}})"),
              file("/work/proj/.mcp.json", true,
                   R"({"docs": {"command": "project-docs"}, "build": {"command": "b"}})"),
              read_config_text({"/work/proj/.vscode/mcp.json", FileFormat::kVsCode, true}, "{",
                               kPlaces, file_environment())});
  ASSERT_EQ(configured.servers.size(), 3u);
  EXPECT_EQ(configured.servers[0].name, "build");
  EXPECT_EQ(configured.servers[0].source, "/work/proj/.mcp.json");
  EXPECT_EQ(configured.servers[1].stdio.command, "user-docs");
  EXPECT_EQ(configured.servers[2].stdio.command, "my-git-server");
  EXPECT_EQ(configured.servers[2].source, "setup()");
  ASSERT_EQ(configured.messages.size(), 3u);
  EXPECT_EQ(configured.messages[0],
            "MCP server \"git\" of /home/u/.config/toolhost/mcp.json is ignored: setup() "
            "configures \"git\" first");
  EXPECT_EQ(configured.messages[1],
            "MCP server \"docs\" of /work/proj/.mcp.json is ignored: "
            "/home/u/.config/toolhost/mcp.json configures \"docs\" first");
  EXPECT_EQ(configured.messages[2].rfind(
                "/work/proj/.vscode/mcp.json: not valid JSON: line 1, column 2:", 0),
            0u)
      << configured.messages[2];
}

TEST(McpConfigFiles, ANameUnderBothKeysOfOneFileIsTakenFromServersAndReported) {
  FileServers file = read_config_text(
      {"/h/.config/mcphub/servers.json", FileFormat::kMcphub, false},
      R"({"servers": {"a": {"command": "vscode"}}, "mcpServers": {"a": {"command": "x"}}})",
      kPlaces, file_environment());
  ASSERT_EQ(file.servers.size(), 1u);
  EXPECT_EQ(file.servers[0].stdio.command, "vscode");
  EXPECT_EQ(file.warnings,
            std::vector<std::string>{"\"a\" under mcpServers is ignored: it is under servers too"});
}

TEST(McpConfigFiles, OddShapesAreThatServersErrorNeverAThrow) {
  FileServers file = read_config_text({"/p/.vscode/mcp.json", FileFormat::kVsCode, true},
                                      R"({"inputs": [{"id": 5}, 3, {"id": "k", "description": []}],
          "servers": {"a": 5, "b": {"command": "x", "args": ["${input:k}"], "type": 1},
                      "c": {"command": "x", "env": {"N": 3, "M": true}}}})",
                                      kPlaces, file_environment());
  ASSERT_EQ(file.error, "");
  EXPECT_EQ(server(file, "a").error, "expected an object");
  EXPECT_EQ(server(file, "b").error.rfind("${input:k} is a value VS Code asks for", 0), 0u);
  EXPECT_EQ(server(file, "c").error, "env.M: expected a string");
  FileServers servers_not_object =
      read_config_text({"/p/.mcp.json", FileFormat::kClaudeCode, true}, R"({"mcpServers": [1]})",
                       kPlaces, file_environment());
  EXPECT_EQ(servers_not_object.error, "mcpServers: expected an object of NAME: server");
}

TEST(McpConfigFiles, ToolhostsOwnMcpServeEntryIsLeftOut) {
  // The README tells agents' users to add toolhost here; as a client it would call itself.
  FileServers file = read_config_text(
      {"/p/.mcp.json", FileFormat::kClaudeCode, true},
      R"({"mcpServers": {"toolhost": {"command": "/h/.local/share/nvim/lazy/toolhost/build/toolhost",
                                       "args": ["mcp", "serve"]},
                         "other": {"command": "toolhost", "args": ["mcp", "list"]}}})",
      kPlaces, file_environment());
  ASSERT_EQ(file.servers.size(), 1u);
  EXPECT_EQ(file.servers[0].name, "other");
}

TEST(McpConfigFiles, ProjectFormatsIgnoreToolhostsPolicyKeys) {
  // A repository's file cannot auto-approve or trust its own tools.
  FileServers file = read_config_text(
      {"/p/.mcp.json", FileFormat::kClaudeCode, true},
      R"({"mcpServers": {"a": {"command": "x", "auto_approve": true, "trusted": true,
                                "autoApprove": true}}})",
      kPlaces, file_environment());
  EXPECT_FALSE(file.servers.at(0).auto_approve_all);
  EXPECT_FALSE(file.servers.at(0).trusted);
}

}  // namespace
}  // namespace toolhost::mcp
