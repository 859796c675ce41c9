// The MCP servers of setup()'s `mcp.servers`, and `${VAR}` expansion: pure functions.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "mcp/server_config.h"

namespace toolhost::mcp {
namespace {

Lookup fake_environment() {
  static const std::map<std::string, std::string> vars{{"HOME", "/home/u"}, {"TOKEN", "s3cret"}};
  return [](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(McpServerConfig, BothVariableFormsExpandFromTheEnvironmentOnly) {
  std::string error;
  EXPECT_EQ(expand_variables("${HOME}/x ${env:TOKEN}", fake_environment(), error),
            "/home/u/x s3cret");
  EXPECT_EQ(expand_variables("$HOME $(id) ${ unclosed", fake_environment(), error),
            "$HOME $(id) ${ unclosed");
  EXPECT_EQ(expand_variables("${MISSING}", fake_environment(), error), std::nullopt);
  EXPECT_EQ(error, "${MISSING} is not set in the environment");
  EXPECT_EQ(expand_variables("${env:}", fake_environment(), error), std::nullopt);
}

TEST(McpServerConfig, AStdioSpecIsReadWithItsDefaults) {
  ServersConfig config = servers_from_json(nlohmann::json::parse(R"({"servers": {
      "everything": {"command": "npx", "args": ["-y", "${HOME}/srv"],
                     "env": {"API_KEY": "${env:TOKEN}"}, "cwd": "${HOME}"},
      "slow": {"command": "x", "timeout_ms": 5000, "startup_timeout_ms": 200, "disabled": true,
               "protocol": "2026-07-28"}}})"),
                                           fake_environment());
  ASSERT_EQ(config.error, "");
  ASSERT_EQ(config.servers.size(), 2u);
  const ServerConfig& everything = config.servers[0];
  EXPECT_EQ(everything.name, "everything");
  EXPECT_EQ(everything.error, "");
  EXPECT_EQ(everything.stdio.command, "npx");
  EXPECT_EQ(everything.stdio.args, (std::vector<std::string>{"-y", "/home/u/srv"}));
  ASSERT_EQ(everything.stdio.env.size(), 1u);
  EXPECT_EQ(everything.stdio.env[0], std::make_pair(std::string("API_KEY"), std::string("s3cret")));
  EXPECT_EQ(everything.stdio.cwd, "/home/u");
  EXPECT_EQ(everything.timeout_ms, 60'000u);
  EXPECT_EQ(everything.startup_timeout_ms, 10'000u);
  EXPECT_FALSE(everything.disabled);
  EXPECT_FALSE(everything.discover_first);
  const ServerConfig& slow = config.servers[1];
  EXPECT_EQ(slow.timeout_ms, 5000u);
  EXPECT_EQ(slow.startup_timeout_ms, 200u);
  EXPECT_TRUE(slow.disabled);
  EXPECT_TRUE(slow.discover_first);
}

TEST(McpServerConfig, ABadSpecIsThatServersErrorAndTheOthersStay) {
  ServersConfig config = servers_from_json(nlohmann::json::parse(R"({"servers": {
      "a": {"command": "ok"},
      "b": {"command": "x", "args": "not a list"},
      "c": {"args": []},
      "d": {"command": "x", "env": {"K": "${NOPE}"}},
      "e": {"command": "x", "timeout_ms": -1},
      "f": {"url": "https://example.com/mcp"},
      "g": {"command": "x", "protocol": "2025-11-25"}}})"),
                                           fake_environment());
  ASSERT_EQ(config.servers.size(), 7u);
  EXPECT_EQ(config.servers[0].error, "");
  EXPECT_EQ(config.servers[1].error, "args: expected a list of strings");
  EXPECT_EQ(config.servers[2].error, "needs a command or a url");
  EXPECT_EQ(config.servers[3].error, "env.K: ${NOPE} is not set in the environment");
  EXPECT_EQ(config.servers[4].error, "timeout_ms: expected a positive number of milliseconds");
  EXPECT_EQ(config.servers[5].error, "");
  EXPECT_EQ(config.servers[5].url, "https://example.com/mcp");
  EXPECT_EQ(config.servers[6].error, "protocol: expected \"auto\" or \"2026-07-28\"");
}

TEST(McpServerConfig, PolicyKeysAndHeadersAreRead) {
  ServersConfig config = servers_from_json(nlohmann::json::parse(R"({"servers": {
      "all": {"command": "x", "auto_approve": true, "trusted": true},
      "some": {"command": "x", "auto_approve": ["echo"], "disabled_tools": ["rm"]},
      "web": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
      "bad": {"command": "x", "auto_approve": "echo"},
      "bad2": {"command": "x", "trusted": "yes"}}})"),
                                           fake_environment());
  ASSERT_EQ(config.servers.size(), 5u);
  const ServerConfig& all = config.servers[0];
  EXPECT_TRUE(all.auto_approve_all);
  EXPECT_TRUE(all.trusted);
  EXPECT_EQ(config.servers[1].error, "auto_approve: expected true or a list of tool names");
  EXPECT_EQ(config.servers[2].error, "trusted: expected a boolean");
  const ServerConfig& some = config.servers[3];
  EXPECT_FALSE(some.auto_approve_all);
  EXPECT_EQ(some.auto_approve, std::vector<std::string>{"echo"});
  EXPECT_EQ(some.disabled_tools, std::vector<std::string>{"rm"});
  const ServerConfig& web = config.servers[4];
  ASSERT_EQ(web.headers.size(), 1u);
  EXPECT_EQ(web.headers[0].second, "Bearer " + *fake_environment()("TOKEN"));
}

TEST(McpServerConfig, TheHashChangesWithHowTheServerStartsAndNotWithPolicy) {
  auto one = [](const char* spec) {
    return servers_from_json(
               nlohmann::json::parse(std::string(R"({"servers": {"s": )") + spec + "}}"),
               fake_environment())
        .servers.at(0);
  };
  std::string base = one(R"({"command": "x", "args": ["a"]})").hash();
  EXPECT_EQ(base.size(), 16u);
  EXPECT_EQ(one(R"({"command": "x", "args": ["a"], "auto_approve": true})").hash(), base);
  EXPECT_NE(one(R"({"command": "x", "args": ["b"]})").hash(), base);
  EXPECT_NE(one(R"({"command": "x", "args": ["a"], "env": {"K": "v"}})").hash(), base);
  EXPECT_NE(one(R"({"command": "x", "args": ["a"], "protocol": "2026-07-28"})").hash(), base);
}

TEST(McpServerConfig, NoMcpTableIsNoServersAndAWrongOneIsAnError) {
  EXPECT_TRUE(servers_from_json(nullptr, fake_environment()).servers.empty());
  EXPECT_EQ(servers_from_json(nlohmann::json::array(), fake_environment()).error,
            "mcp: expected a table");
  EXPECT_EQ(servers_from_json({{"servers", 3}}, fake_environment()).error,
            "mcp.servers: expected a table of NAME = spec");
}

}  // namespace
}  // namespace toolhost::mcp
