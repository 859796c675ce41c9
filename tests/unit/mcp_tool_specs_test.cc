// An MCP server's tools as tool table entries (SPEC 13.3): names, what the policy reads, and a
// server's odd schema that must never throw.
#include <gtest/gtest.h>

#include "mcp/tool_cache.h"
#include "mcp/tool_specs.h"
#include "test_jobs.h"

namespace toolhost::mcp {
namespace {

Tool tool(const std::string& name, Json schema = Json{{"type", "object"}}) {
  Tool t;
  t.name = name;
  t.description = "does " + name;
  t.input_schema = std::move(schema);
  return t;
}

TEST(McpToolSpecs, NamesKeepTheServerAndLeaveOutDisabledTools) {
  ServerConfig config;
  config.name = "my server";
  config.disabled_tools = {"hidden"};
  std::vector<core::ToolSpec> specs =
      tool_specs({{&config, {tool("get-sum"), tool("hidden"), tool("x y")}}});
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "my_server__get-sum");
  EXPECT_EQ(specs[0].remote->server, "my server");
  EXPECT_EQ(specs[0].remote->tool, "get-sum");
  EXPECT_EQ(specs[1].name, "my_server__x_y");
  EXPECT_EQ(specs[0].description, "does get-sum");
}

TEST(McpToolSpecs, TrustedServersReadOnlyToolsAreApprovedButNotByName) {
  ServerConfig config;
  config.name = "s";
  config.trusted = true;
  Tool reads = tool("reads");
  reads.annotations.read_only = true;
  Tool writes = tool("writes");
  std::vector<core::ToolSpec> specs = tool_specs({{&config, {reads, writes}}});
  EXPECT_TRUE(specs[0].remote->auto_approve);
  EXPECT_FALSE(specs[0].remote->approved_by_name);
  EXPECT_FALSE(specs[0].remote->destructive);
  EXPECT_FALSE(specs[1].remote->auto_approve);
  EXPECT_TRUE(specs[1].remote->destructive) << "no hint: MCP's default is destructive";
  config.trusted = false;
  config.auto_approve = {"writes"};
  specs = tool_specs({{&config, {reads, writes}}});
  EXPECT_FALSE(specs[0].remote->auto_approve) << "readOnlyHint counts only when trusted";
  EXPECT_TRUE(specs[1].remote->auto_approve);
  EXPECT_TRUE(specs[1].remote->approved_by_name);
}

TEST(McpToolSpecs, TheFingerprintFollowsTheDescriptionAndTheSchemaOnly) {
  Tool a = tool("t");
  Tool b = a;
  b.annotations.read_only = true;
  EXPECT_EQ(tool_fingerprint(a), tool_fingerprint(b));
  b.description += " and more";
  EXPECT_NE(tool_fingerprint(a), tool_fingerprint(b));
  Tool c = tool("t", Json{{"type", "object"}, {"properties", {{"p", {{"type", "string"}}}}}});
  EXPECT_NE(tool_fingerprint(a), tool_fingerprint(c));
}

TEST(McpToolSpecs, AnOddSchemaGivesParametersWithoutThrowing) {
  ServerConfig config;
  config.name = "s";
  Json schema = {{"type", "object"},
                 {"properties",
                  {{"n", {{"type", {"string", 3}}, {"description", 5}}},
                   {"m", "not an object"},
                   {"k", {{"type", "number"}, {"description", "a number"}}}}},
                 {"required", {"k", 7}}};
  std::vector<core::ToolSpec> specs = tool_specs({{&config, {tool("t", schema)}}});
  ASSERT_EQ(specs.size(), 1u);
  ASSERT_EQ(specs[0].params.size(), 3u);
  const core::ParamSpec& k = specs[0].params[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_TRUE(k.required);
  EXPECT_EQ(k.description, "a number");
  EXPECT_EQ(specs[0].params[2].types, std::vector<std::string>{"string"});
  EXPECT_EQ(specs[0].params[2].description, "");
  EXPECT_TRUE(specs[0].required.empty()) << "the server checks them; the parser does not";
}

TEST(McpToolCache, ReadsBackWhatItWroteAndNothingFromABadFile) {
  jobs::testing::TempDir state;
  EXPECT_FALSE(read_tool_cache(state.path(), "h1"));
  EXPECT_EQ(write_tool_cache(state.path(), "h1", "s", {"2025-11-25", {tool("a"), tool("b")}}), "");
  auto cached = read_tool_cache(state.path(), "h1");
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->protocol, "2025-11-25");
  ASSERT_EQ(cached->tools.size(), 2u);
  EXPECT_EQ(cached->tools[1].name, "b");
  std::ofstream(tool_cache_path(state.path(), "h2")) << R"({"protocol": 5, "tools": [{}]})";
  EXPECT_FALSE(read_tool_cache(state.path(), "h2")) << "a tool without a name: no cache";
  std::ofstream(tool_cache_path(state.path(), "h3")) << R"({"protocol": 5, "tools": []})";
  auto odd = read_tool_cache(state.path(), "h3");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->protocol, "");
}

}  // namespace
}  // namespace toolhost::mcp
