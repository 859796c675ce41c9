// MCP servers' tools in `tools({format})` and `toolhost tools` (SPEC 13.4): their schema and
// hints are the server's in all three formats, and their names fit what each format allows.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/tool_schema.h"
#include "parse_test_util.h"

namespace toolhost::core {
namespace {

using nlohmann::json;

const std::regex kApiName("^[a-zA-Z0-9_-]{1,64}$");

json named(const json& tools, const std::string& key, const std::string& name) {
  for (const auto& tool : tools) {
    const json& entry = tool.contains("function") ? tool["function"] : tool;
    if (entry[key] == name) return tool;
  }
  ADD_FAILURE() << "no tool " << name << " in " << tools.dump();
  return json::object();
}

TEST(ToolSchemaMcp, AServersToolKeepsItsSchemaAndHintsInEveryFormat) {
  ToolTable table = parse::testing::mcp_tool_table();
  table.tools.back().remote->annotations = {{"readOnlyHint", true}, {"title", "Search docs"}};
  const json& echo_schema = table.find("everything__echo")->remote->input_schema;

  json openai = named(tools_json(table, SchemaFormat::kOpenAI), "name", "everything__echo");
  EXPECT_EQ(openai["type"], "function");
  EXPECT_EQ(openai["function"]["parameters"], echo_schema);
  EXPECT_EQ(openai["function"]["description"], "the echo tool of MCP server everything");
  json anthropic = named(tools_json(table, SchemaFormat::kAnthropic), "name", "everything__echo");
  EXPECT_EQ(anthropic["input_schema"], echo_schema);
  json mcp = tools_json(table, SchemaFormat::kMcp);
  EXPECT_EQ(named(mcp, "name", "everything__echo")["inputSchema"], echo_schema);
  EXPECT_EQ(named(mcp, "name", "everything__echo")["annotations"],
            (json{{"title", "everything__echo"}}));
  EXPECT_EQ(named(mcp, "name", "my_docs__search.v2")["annotations"],
            (json{{"readOnlyHint", true}, {"title", "Search docs"}}));
  EXPECT_EQ(mcp.size(), table.tools.size());
}

TEST(ToolSchemaMcp, ADotInANameBecomesAnUnderscoreWhereTheModelApisAllowNone) {
  ToolTable table = parse::testing::mcp_tool_table();
  for (auto format : {SchemaFormat::kOpenAI, SchemaFormat::kAnthropic}) {
    json tools = tools_json(table, format);
    ASSERT_EQ(tools.size(), table.tools.size());
    for (const auto& tool : tools) {
      const std::string name = tool.contains("function") ? tool["function"]["name"] : tool["name"];
      EXPECT_TRUE(std::regex_match(name, kApiName)) << name;
    }
    named(tools, "name", "my_docs__search_v2");
  }
  // MCP allows `.`: its format keeps the table's name.
  named(tools_json(table, SchemaFormat::kMcp), "name", "my_docs__search.v2");
}

TEST(ToolSchemaMcp, ACleanedNameThatMeetsAnotherToolsGetsAHashAndStaysDistinct) {
  ToolTable table = parse::testing::mcp_tool_table();
  ToolSpec plain;
  plain.name = "my_docs__search_v2";  // a custom tool already called so
  table.tools.push_back(plain);
  ToolSpec long_name;
  long_name.name = std::string(60, 'a') + ".b.c.d";  // 66: cut to 64 as well
  table.tools.push_back(long_name);
  std::vector<std::string> names = api_tool_names(table);
  ASSERT_EQ(names.size(), table.tools.size());
  std::set<std::string> distinct(names.begin(), names.end());
  EXPECT_EQ(distinct.size(), names.size());
  EXPECT_EQ(names[table.tools.size() - 2], "my_docs__search_v2");
  const std::string& dotted = names[table.tools.size() - 3];
  EXPECT_EQ(dotted.substr(0, 19), "my_docs__search_v2_");
  EXPECT_EQ(dotted.size(), 25u);
  for (const auto& name : names) EXPECT_TRUE(std::regex_match(name, kApiName)) << name;
  EXPECT_EQ(find_by_api_name(table, dotted), &table.tools[table.tools.size() - 3]);
  EXPECT_EQ(find_by_api_name(table, "my_docs__search_v2"), nullptr);  // the custom tool's own
}

}  // namespace
}  // namespace toolhost::core
