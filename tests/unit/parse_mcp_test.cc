// MCP servers' tools named in chat blocks (SPEC 13.3): CodeCompanion's `use_mcp_tool` actions
// (as mcphub writes them), JSON fences and the sidekick `**Tool:**` header all become calls of
// the table's tool that the server offers; what cannot run is a clear parse error.
#include <gtest/gtest.h>

#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using nlohmann::json;

ParseResult parse_mcp(std::string_view text, bool complete = true) {
  return parse(testing::lines_of(text), testing::mcp_options(complete));
}

std::string xml_action(const std::string& tool_attr, const std::string& type_attr,
                       const std::string& inner) {
  return "## CodeCompanion\n```xml\n<tools>\n<tool name=\"" + tool_attr + "\">\n<action" +
         type_attr + ">\n" + inner + "\n</action>\n</tool>\n</tools>\n```\n";
}

std::string use_mcp_tool(const std::string& server, const std::string& tool,
                         const std::string& arguments_element) {
  return xml_action("use_mcp_tool", "",
                    "<server_name><![CDATA[" + server + "]]></server_name>\n<tool_name><![CDATA[" +
                        tool + "]]></tool_name>\n" + arguments_element);
}

TEST(ParseMcp, JsonFenceNamingEverythingEchoIsACallOfThatTool) {
  auto r = parse_mcp(
      "ASSISTANT: x\n```json\n{\"tool\": \"everything__echo\", \"arguments\": {\"message\": "
      "\"hi\"}}\n```\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "everything__echo");
  EXPECT_EQ(r.calls[0].params, (json{{"message", "hi"}}));
  EXPECT_EQ(r.calls[0].dialect, Dialect::Json);
}

TEST(ParseMcp, ACallByTheNameTheModelApisSawReachesTheTool) {
  // tools({format = "openai"}) calls `my_docs__search.v2` `my_docs__search_v2`.
  auto r = parse_mcp(
      "ASSISTANT: x\n```json\n{\"name\": \"my_docs__search_v2\", \"arguments\": "
      "\"{\\\"query\\\": \\\"q\\\"}\"}\n```\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "my_docs__search.v2");
  EXPECT_EQ(r.calls[0].params, (json{{"query", "q"}}));
}

TEST(ParseMcp, McphubsMcpToolWithAUseMcpToolActionCallsTheServersTool) {
  auto r = parse_mcp(xml_action("mcp", " type=\"use_mcp_tool\"",
                                "<server_name><![CDATA[everything]]></server_name>\n"
                                "<tool_name><![CDATA[echo]]></tool_name>\n"
                                "<tool_input><![CDATA[{\"message\": \"hi\"}]]></tool_input>"));
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "everything__echo");
  EXPECT_EQ(r.calls[0].params, (json{{"message", "hi"}}));
  EXPECT_EQ(r.calls[0].dialect, Dialect::CodeCompanion);
}

TEST(ParseMcp, UseMcpToolAsItsOwnToolTakesToolInputOrArguments) {
  for (const char* element : {"<tool_input>{\"a\": 2, \"b\": 3}</tool_input>",
                              "<arguments><![CDATA[{\"a\": 2, \"b\": 3}]]></arguments>"}) {
    auto r = parse_mcp(use_mcp_tool("everything", "add", element));
    ASSERT_TRUE(r.errors.empty()) << element << ": " << r.errors[0].message;
    ASSERT_EQ(r.calls.size(), 1u) << element;
    EXPECT_EQ(r.calls[0].tool, "everything__add");
    EXPECT_EQ(r.calls[0].params, (json{{"a", 2}, {"b", 3}}));
  }
}

TEST(ParseMcp, ArgumentsGivenAsXmlElementsOrNotAtAllAreAnObject) {
  auto nested =
      parse_mcp(use_mcp_tool("everything", "echo", "<arguments><message>hi</message></arguments>"));
  ASSERT_EQ(nested.calls.size(), 1u);
  EXPECT_EQ(nested.calls[0].params, (json{{"message", "hi"}}));
  auto none = parse_mcp(use_mcp_tool("everything", "longRunningOperation", ""));
  ASSERT_EQ(none.calls.size(), 1u);
  EXPECT_EQ(none.calls[0].params, json::object());
}

TEST(ParseMcp, TheServerAndToolMapThroughTheTablesRemoteFieldsNotTheName) {
  // The table calls it `my_docs__search.v2`: the server's name has a space.
  auto r =
      parse_mcp(use_mcp_tool("my docs", "search.v2", "<arguments>{\"query\": \"q\"}</arguments>"));
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "my_docs__search.v2");
  auto cleaned = parse_mcp(use_mcp_tool("my_docs", "search.v2", "<arguments>{}</arguments>"));
  EXPECT_TRUE(cleaned.calls.empty());
  ASSERT_EQ(cleaned.errors.size(), 1u);
}

TEST(ParseMcp, AnUnknownToolNamesServerAndToolAndListsWhatTheServerOffers) {
  auto r = parse_mcp(use_mcp_tool("everything", "printEnv", "<tool_input>{}</tool_input>"));
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "unknown tool: MCP server `everything`, tool `printEnv` (the server offers `echo`, "
            "`add`, `longRunningOperation`)");
  EXPECT_EQ(r.errors[0].line, 4);  // the action's row
}

TEST(ParseMcp, AnUnknownServerIsNamedWithTheServersThatHaveTools) {
  auto r = parse_mcp(use_mcp_tool("weather-server", "get_forecast", ""));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "unknown MCP server: MCP server `weather-server`, tool `get_forecast` (servers with "
            "tools: `everything`, `my docs`)");
  auto bare =
      parse(testing::lines_of(use_mcp_tool("everything", "echo", "")), testing::default_options());
  ASSERT_EQ(bare.errors.size(), 1u);
  EXPECT_EQ(bare.errors[0].message,
            "unknown MCP server: MCP server `everything`, tool `echo` (no MCP server's tools are "
            "known)");
}

TEST(ParseMcp, AccessMcpResourceIsAnErrorNamingTheServerAndResource) {
  const std::string inner =
      "<server_name>everything</server_name>\n<uri>test://static/resource/1</uri>";
  for (const auto& text : {xml_action("mcp", " type=\"access_mcp_resource\"", inner),
                           xml_action("access_mcp_resource", "", inner)}) {
    auto r = parse_mcp(text);
    EXPECT_TRUE(r.calls.empty());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message,
              "`access_mcp_resource` (MCP server `everything`, resource "
              "`test://static/resource/1`) is not supported: toolhost calls MCP servers' tools, "
              "not their resources");
  }
}

TEST(ParseMcp, AnMcpActionWithoutItsTypeOrNamesIsAnError) {
  auto untyped = parse_mcp(xml_action("mcp", "", "<server_name>everything</server_name>"));
  ASSERT_EQ(untyped.errors.size(), 1u);
  EXPECT_EQ(untyped.errors[0].message,
            "the `mcp` tool's action needs type=\"use_mcp_tool\" (or \"access_mcp_resource\")");
  auto nameless =
      parse_mcp(xml_action("use_mcp_tool", "", "<server_name>everything</server_name>"));
  ASSERT_EQ(nameless.errors.size(), 1u);
  EXPECT_EQ(nameless.errors[0].message, "`use_mcp_tool` needs `<server_name>` and `<tool_name>`");
}

TEST(ParseMcp, ArgumentsThatAreNoObjectAreAParseError) {
  auto list = parse_mcp(use_mcp_tool("everything", "echo", "<tool_input>[1, 2]</tool_input>"));
  ASSERT_EQ(list.errors.size(), 1u);
  EXPECT_EQ(list.errors[0].message,
            "the `<tool_input>` of MCP server `everything`, tool `echo`, must be a JSON object, "
            "not a list");
  auto broken = parse_mcp(use_mcp_tool("everything", "echo", "<tool_input>{\"a\": </tool_input>"));
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_EQ(broken.errors[0].message,
            "the `<tool_input>` of MCP server `everything`, tool `echo`, are not valid JSON");
  auto json_fence = parse_mcp(
      "ASSISTANT: x\n```json\n{\"tool\": \"everything__echo\", \"arguments\": [\"hi\"]}\n```\n");
  ASSERT_EQ(json_fence.errors.size(), 1u);
  EXPECT_EQ(json_fence.errors[0].message, "the parameters of `everything__echo` are not an object");
  EXPECT_TRUE(list.calls.empty() && broken.calls.empty() && json_fence.calls.empty());
}

TEST(ParseMcp, AToolHeaderAndItsJsonFenceAreACall) {
  auto r = parse_mcp(
      "ASSISTANT: x\n**Tool:** `everything__echo`\n```json\n{\"message\": \"hi\"}\n```\n"
      "> say hi\nafter\n");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "everything__echo");
  EXPECT_EQ(r.calls[0].dialect, Dialect::Sidekick);
  // The `>` lines are part of the block, not an argument the server would refuse.
  EXPECT_EQ(r.calls[0].params, (json{{"message", "hi"}}));
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 6);
}

TEST(ParseMcp, AToolHeaderTakesAnyNameOfTheTableOrTheServersOwnSpelling) {
  auto builtin =
      parse_mcp("ASSISTANT: x\n**Tool:** `read_file`\n\n```json\n{\"path\": \"a\"}\n```\n");
  ASSERT_EQ(builtin.calls.size(), 1u);
  EXPECT_EQ(builtin.calls[0].tool, "read_file");
  EXPECT_EQ(builtin.calls[0].params, (json{{"path", "a"}}));
  auto raw =
      parse_mcp("ASSISTANT: x\n**Tool:** `my docs__search.v2`\n```\n{\"query\": \"q\"}\n```\n");
  ASSERT_EQ(raw.calls.size(), 1u);
  EXPECT_EQ(raw.calls[0].tool, "my_docs__search.v2");
  auto empty =
      parse_mcp("ASSISTANT: x\n**Tool:** `everything__longRunningOperation`\n```json\n```\n");
  ASSERT_EQ(empty.calls.size(), 1u);
  EXPECT_EQ(empty.calls[0].params, json::object());
}

TEST(ParseMcp, AToolHeaderWithAMisspelledToolListsWhatItsServerOffers) {
  auto r = parse_mcp("ASSISTANT: x\n**Tool:** `everything__ech`\n```json\n{}\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "unknown tool `everything__ech`: MCP server `everything` offers `everything__echo`, "
            "`everything__add`, `everything__longRunningOperation`");
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 5);
}

TEST(ParseMcp, AToolHeaderWhoseFenceIsNoObjectIsAnError) {
  auto r = parse_mcp("ASSISTANT: x\n**Tool:** `everything__echo`\n```json\n\"hi\"\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "the arguments of `everything__echo` must be a JSON object, not a string");
  EXPECT_EQ(r.errors[0].line, 2);
}

TEST(ParseMcp, AToolHeaderWithoutItsFenceIsAnErrorOrStillStreaming) {
  const char* text = "ASSISTANT: x\n**Tool:** `everything__echo`\n";
  auto done = parse_mcp(text);
  EXPECT_TRUE(done.calls.empty());
  ASSERT_EQ(done.errors.size(), 1u);
  EXPECT_EQ(done.errors[0].message,
            "`**Tool:**` without the fence holding its JSON arguments (`{}` for none)");
  auto streaming = parse_mcp(text, false);
  ASSERT_EQ(streaming.calls.size(), 1u);
  EXPECT_EQ(streaming.calls[0].status, Status::Incomplete);
  EXPECT_EQ(streaming.calls[0].tool, "everything__echo");
  auto open_fence = parse_mcp("ASSISTANT: x\n**Tool:** `everything__echo`\n```json\n{\"mes", false);
  ASSERT_EQ(open_fence.calls.size(), 1u);
  EXPECT_EQ(open_fence.calls[0].status, Status::Incomplete);
}

TEST(ParseMcp, AToolHeaderIsProseWithTextAfterItAndCannotStandBesideAnother) {
  auto prose =
      parse_mcp("ASSISTANT: x\n**Tool:** `everything__echo` is the one\n```json\n{}\n```\n");
  EXPECT_TRUE(prose.calls.empty());
  EXPECT_TRUE(prose.errors.empty());
  auto beside = parse_mcp("ASSISTANT: x\n**Read:** `a` **Tool:** `everything__echo`\n");
  EXPECT_TRUE(beside.calls.empty());
  ASSERT_EQ(beside.errors.size(), 1u);
}

}  // namespace
}  // namespace toolhost::parse
