// What CodeCompanion and model APIs really write into fences (the peer-formats issue): XML
// declarations and xml2lua's trimming, API tool-call JSON shapes.
#include <gtest/gtest.h>

#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

TEST(PeerXml, DeclarationBeforeToolsIsAccepted) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tools>\n"
      "<tool name=\"cmd_runner\"><action><command>make</command></action></tool>\n</tools>\n"
      "```\n");
  ASSERT_EQ(r.calls.size(), 1u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"command", "make"}}));
}

TEST(PeerXml, DeclarationBeforeOtherXmlIsText) {
  auto r = parse_text("## CodeCompanion\n```xml\n<?xml version=\"1.0\"?>\n<config/>\n```\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(PeerXml, ScalarTextIsTrimmedCodeKeepsItsIndentation) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tools>\n  <tool name=\"files\">\n    <action type=\"edit\">\n"
      "      <path>\n        src/a.py\n      </path>\n"
      "      <search>\n    def f():\n        return 1\n      </search>\n"
      "      <replace>    def f():\n        return 2</replace>\n"
      "    </action>\n  </tool>\n</tools>\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "src/a.py"},
                                               {"search", {"    def f():\n        return 1"}},
                                               {"replace", {"    def f():\n        return 2"}}}));
}

TEST(PeerXml, CdataIsTakenAsWritten) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"cmd_runner\"><action>\n"
      "<command><![CDATA[  echo 'a  b'  ]]></command>\n</action></tool></tools>\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params["command"], "  echo 'a  b'  ");
}

TEST(PeerXml, ToolNameAndTypeAreTrimmed) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tool>\n  <name>\n    read_file\n  </name>\n"
      "  <parameters>\n    <path> a.lua </path>\n  </parameters>\n</tool>\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].tool, "read_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.lua"}}));
}

const char* const kOpenAiCall =
    R"({"id": "call_7", "type": "function", "function": {"name": "run_terminal_command",)"
    R"( "arguments": "{\"command\": \"ls -la\"}"}})";

TEST(PeerJson, OpenAiToolCallObject) {
  auto r = parse_text(std::string("## CodeCompanion\n```json\n") + kOpenAiCall + "\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].tool, "run_terminal_command");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"command", "ls -la"}}));
  EXPECT_EQ(r.calls[0].dialect, Dialect::Json);
}

TEST(PeerJson, OpenAiFunctionMemberAlone) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"name\": \"read_file\", \"arguments\": "
      "\"{\\\"path\\\": \\\"a.c\\\"}\"}\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.c"}}));
}

TEST(PeerJson, OpenAiEmptyArgumentsStringIsNoParameters) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"type\": \"function\", \"function\": {\"name\": "
      "\"list_directory\", \"arguments\": \"\"}}\n```\n");
  // list_directory needs a path: the empty arguments decode, then the requirement speaks.
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "`list_directory` is missing required parameter `path`");
}

TEST(PeerJson, OllamaToolCallsArrayAndMessage) {
  const std::string calls = R"([{"function": {"name": "read_file", "arguments": {"path": "a"}}},)"
                            R"( {"function": {"name": "read_file", "arguments": {"path": "b"}}}])";
  for (const std::string& text :
       {calls, R"({"role": "assistant", "content": "", "tool_calls": )" + calls + "}"}) {
    auto r = parse_text("## CodeCompanion\n```json\n" + text + "\n```\n");
    ASSERT_EQ(r.calls.size(), 2u) << text;
    EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a"}}));
    EXPECT_EQ(r.calls[1].params, (nlohmann::json{{"path", "b"}}));
    EXPECT_EQ(r.calls[1].part, 2);
  }
}

TEST(PeerJson, AnthropicToolUseBlock) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"type\": \"tool_use\", \"id\": \"toolu_01\", \"name\": "
      "\"create_or_replace_file\", \"input\": {\"path\": \"n.txt\", \"content\": \"hi\"}}\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "n.txt"}, {"content", "hi"}}));
}

TEST(PeerJson, InputWithoutToolUseIsText) {
  auto r = parse_text("## CodeCompanion\n```json\n{\"name\": \"form\", \"input\": \"x\"}\n```\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(PeerJson, ErrorNamesTheAcceptedShapes) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"name\": \"x\", \"parameters\": 1, \"tool\": 5}\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  const std::string& message = r.errors[0].message;
  for (const char* shape : {"\"tool\", \"parameters\"", "OpenAI", "Ollama", "tool_use"}) {
    EXPECT_NE(message.find(shape), std::string::npos) << shape << " in " << message;
  }
}

// llm-sidekick's read_files: one call per path, so each has its own id, job and result.
TEST(PeerJson, ReadFilesWithSeveralPathsIsOneCallPerPath) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"name\": \"read_files\", \"arguments\": {\"file_paths\": "
      "[\"a.lua\", \"b.lua\"]}}\n```\n");
  ASSERT_EQ(r.calls.size(), 2u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[0].tool, "read_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.lua"}}));
  EXPECT_EQ(r.calls[1].params, (nlohmann::json{{"path", "b.lua"}}));
  EXPECT_EQ(r.calls[0].part, 1);
  EXPECT_EQ(r.calls[1].part, 2);
  EXPECT_NE(r.calls[0].id, r.calls[1].id);
}

TEST(PeerJson, ReadFilesWithNoPathsIsMissingItsPath) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"name\": \"read_files\", \"arguments\": {\"file_paths\": "
      "[]}}\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "`read_file` is missing required parameter `path`");
}

TEST(PeerXml, ReadFilesWithSeveralPathsIsOneCallPerPath) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tool><name>read_files</name><parameters>"
      "<file_paths>a</file_paths><file_paths>b</file_paths></parameters></tool>\n```\n");
  ASSERT_EQ(r.calls.size(), 2u) << (r.errors.empty() ? "" : r.errors[0].message);
  EXPECT_EQ(r.calls[1].params, (nlohmann::json{{"path", "b"}}));
}

// `<command><a/></command>` once became a call whose command was an object, failing only when
// run; markup where a tool takes text is a parse error that says what to do.
TEST(PeerXml, ElementsInsideATextParameterAreAnError) {
  for (const char* shape :
       {"<tools><tool name=\"cmd_runner\"><action><command><a/></command></action></tool></tools>",
        "<tool><name>run_terminal_command</name><parameters><command>ls <b>x</b></command>"
        "</parameters></tool>"}) {
    auto r = parse_text(std::string("## CodeCompanion\n```xml\n") + shape + "\n```\n");
    EXPECT_TRUE(r.calls.empty()) << shape;
    ASSERT_EQ(r.errors.size(), 1u) << shape;
    EXPECT_EQ(r.errors[0].message,
              "`<command>` holds XML elements, but `run_terminal_command` takes text there; put "
              "markup in <![CDATA[…]]>");
  }
  auto code = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"files\"><action type=\"create\">"
      "<path>a.html</path><contents><div>hi</div></contents></action></tool></tools>\n```\n");
  ASSERT_EQ(code.errors.size(), 1u);
  EXPECT_EQ(code.errors[0].message.rfind("`<contents>` holds XML elements", 0), 0u);
  auto twice = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"cmd_runner\"><action><command>a</command>"
      "<command>b</command></action></tool></tools>\n```\n");
  ASSERT_EQ(twice.errors.size(), 1u);
  EXPECT_EQ(twice.errors[0].message,
            "`<command>` is given more than once, but `run_terminal_command` takes one text there");
}

TEST(PeerXml, MarkupInCdataAndNestedParametersOfOtherKindsStayCalls) {
  auto cdata = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"files\"><action type=\"create\">"
      "<path>a.html</path><contents><![CDATA[<div>hi</div>]]></contents></action></tool>"
      "</tools>\n```\n");
  ASSERT_EQ(cdata.calls.size(), 1u) << (cdata.errors.empty() ? "" : cdata.errors[0].message);
  EXPECT_EQ(cdata.calls[0].params["content"], "<div>hi</div>");
  // Repeated <search>/<replace> are pairs, and a custom tool's nested parameters are its own.
  auto pairs = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"files\"><action type=\"edit\">"
      "<path>a</path><search>x</search><replace>y</replace><search>z</search>"
      "<replace>w</replace></action></tool></tools>\n```\n");
  ASSERT_EQ(pairs.calls.size(), 1u) << (pairs.errors.empty() ? "" : pairs.errors[0].message);
  EXPECT_EQ(pairs.calls[0].params["search"], (nlohmann::json{"x", "z"}));
  Options options = testing::default_options();
  core::ToolSpec custom;
  custom.name = "deploy";
  options.tools.tools.push_back(custom);
  auto nested = parse(testing::lines_of("## CodeCompanion\n```xml\n<tool><name>deploy</name>"
                                        "<parameters><target><host>a</host></target></parameters>"
                                        "</tool>\n```\n"),
                      options);
  ASSERT_EQ(nested.calls.size(), 1u);
  EXPECT_EQ(nested.calls[0].params, (nlohmann::json{{"target", {{"host", "a"}}}}));
}

TEST(PeerJson, ObjectWhereATextParameterGoesIsAnError) {
  auto r = parse_text(
      "## CodeCompanion\n```json\n{\"tool\": \"run_terminal_command\", \"parameters\": "
      "{\"command\": {\"a\": 1}}}\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "parameter `command` of `run_terminal_command` must be text, not structured data (an "
            "object or a list)");
}

}  // namespace
}  // namespace toolhost::parse
