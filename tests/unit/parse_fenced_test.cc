// CodeCompanion XML (SPEC 10.2) and JSON fences (SPEC 10.3).
#include <gtest/gtest.h>

#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

TEST(ParseXml, ToolsActionsAreOneCallEachWithParts) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tools>\n<tool name=\"cmd_runner\">\n"
      "<action><command><![CDATA[a && b]]></command><flag>x</flag></action>\n"
      "<action><command>c &lt; d</command></action>\n</tool>\n</tools>\n```\n");
  ASSERT_EQ(r.calls.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.calls[i].tool, "run_terminal_command");
    EXPECT_EQ(r.calls[i].dialect, Dialect::CodeCompanion);
    EXPECT_EQ(r.calls[i].start, 1);
    EXPECT_EQ(r.calls[i].end, 9);
    EXPECT_EQ(r.calls[i].part, i + 1);
  }
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"command", "a && b"}}));
  EXPECT_EQ(r.calls[1].params, (nlohmann::json{{"command", "c < d"}}));
}

TEST(ParseXml, Xml2LuaShapeWithNestedParameters) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tool><name>search_files</name><parameters>"
      "<pattern>foo</pattern><opts><glob>*.c</glob><glob>*.h</glob></opts></parameters></"
      "tool>\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "search_files");
  EXPECT_EQ(r.calls[0].part, 0);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"pattern", "foo"}, {"opts", {{"glob", {"*.c", "*.h"}}}}}));
}

TEST(ParseXml, FilesActionsMapByType) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tools><tool name=\"files\">"
      "<action "
      "type=\"read_lines\"><path>a</path><start_line>1</start_line><end_line>5</end_line></action>"
      "<action type=\"edit\"><path>b</path><search>x</search><replace>y</replace></action>"
      "<action type=\"delete\"><path>c</path></action>"
      "<action type=\"copy\"><path>d</path><new_path>e</new_path></action>"
      "</tool></tools>\n```\n");
  ASSERT_EQ(r.calls.size(), 4u);
  EXPECT_EQ(r.calls[0].tool, "read_file");
  EXPECT_EQ(r.calls[0].params["start_line"], "1");
  EXPECT_EQ(r.calls[1].tool, "replace_in_file");
  EXPECT_EQ(r.calls[1].params,
            (nlohmann::json{{"path", "b"}, {"search", {"x"}}, {"replace", {"y"}}}));
  EXPECT_EQ(r.calls[2].tool, "delete_file");
  EXPECT_EQ(r.calls[3].tool, "copy_file");
}

TEST(ParseXml, BrokenXmlIsErrorAtItsLine) {
  auto r =
      parse_text("## CodeCompanion\n```xml\n<tools>\n<tool name=\"cmd_runner\">\n</tools>\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 6);
  EXPECT_EQ(r.errors[0].line, 4);
  EXPECT_EQ(r.errors[0].message, "XML does not parse: Start-end tags mismatch");
}

TEST(ParseXml, NonCandidateXmlIsText) {
  auto r = parse_text("## CodeCompanion\n```xml\n<config><broken>\n```\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(ParseXml, UnknownFilesActionIsError) {
  auto r = parse_text(
      "## CodeCompanion\n```xml\n<tool name=\"files\">\n<action "
      "type=\"zap\"><path>a</path></action>\n</tool>\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 3);
  EXPECT_EQ(r.errors[0].message, "unknown `files` action `zap`");
}

TEST(ParseJson, ObjectArrayAndStringArguments) {
  auto r = parse_text(
      "# Assistant\n```json\n[\n{\"tool\": \"ls\", \"parameters\": {}},\n"
      "{\"name\": \"bash\", \"arguments\": \"{\\\"command\\\": \\\"pwd\\\"}\"},\n"
      "{\"tool\": \"grep\", \"parameters\": {\"pattern\": \"x\"}}\n]\n```\n");
  // `ls` is no tool name (only llm-sidekick's header says ls): an error naming it.
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].tool, "run_terminal_command");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"command", "pwd"}}));
  EXPECT_EQ(r.calls[0].part, 1);
  EXPECT_EQ(r.calls[1].tool, "search_files");
  EXPECT_EQ(r.calls[1].part, 2);
  EXPECT_EQ(r.calls[1].dialect, Dialect::Json);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "unknown tool `ls`");
  EXPECT_EQ(r.errors[0].line, 3);
}

TEST(ParseJson, ArrayElementThatIsNoCallNamesItsIndex) {
  auto r = parse_text(
      "# Assistant\n```json\n[{\"tool\": \"read_file\", \"parameters\": {\"path\": \"a\"}}, "
      "42]\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(r.errors[0].message.rfind("element 1 of the JSON array is not a tool call (accepted: ",
                                        0) == 0)
      << r.errors[0].message;
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 4);
}

TEST(ParseJson, BrokenJsonCandidateIsErrorAtItsLine) {
  auto r = parse_text(
      "# Assistant\n```json\n{\"tool\": \"read_file\",\n \"parameters\": {\"path\": }}\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 3);
  EXPECT_NE(r.errors[0].message.find("JSON does not parse"), std::string::npos);
}

TEST(ParseJson, BadStringArgumentsIsError) {
  auto r =
      parse_text("# Assistant\n```json\n{\"name\": \"bash\", \"arguments\": \"{oops\"}\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "the arguments of `bash` are not valid JSON");
}

TEST(ParseJson, OtherJsonIsText) {
  auto r = parse_text(
      "# Assistant\n```json\n{\"name\": \"pkg\", \"version\": 1}\n```\n```json\n[1, 2\n```\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(ParseJson, ResultsAfterTheFenceMatchByPart) {
  auto r = parse_text(
      "# Assistant\n```json\n[{\"tool\": \"read_file\", \"parameters\": {\"path\": \"a\"}},"
      " {\"tool\": \"read_file\", \"parameters\": {\"path\": \"b\"}}]\n```\n"
      "````result id=th-5 tool=read_file status=succeeded duration=0.01s part=2\nb\n````\n");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].status, Status::Pending);
  EXPECT_FALSE(r.calls[0].result);
  EXPECT_EQ(r.calls[1].status, Status::Succeeded);
  EXPECT_EQ(r.calls[1].result->job_id, "th-5");
  EXPECT_EQ(r.calls[1].result->start, 4);
  EXPECT_EQ(r.calls[1].result->end, 7);
}

TEST(ParseParams, ReplaceInFileCollectsNumberedBlocksInOrder) {
  auto r = parse_text(
      "# Assistant\n```json\n{\"tool\": \"replace_in_file\", \"parameters\": {\"path\": \"a\","
      " \"old_block\": \"1\", \"new_block\": \"2\", \"old_block10\": \"19\", \"new_block10\": "
      "\"20\","
      " \"old_block2\": \"3\", \"new_block2\": \"4\"}}\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(
      r.calls[0].params,
      (nlohmann::json{{"path", "a"}, {"search", {"1", "3", "19"}}, {"replace", {"2", "4", "20"}}}));
}

TEST(ParseParams, UnpairedSearchIsError) {
  auto r = parse_text(
      "# Assistant\n```json\n{\"tool\": \"replace_in_file\", \"parameters\": {\"path\": \"a\","
      " \"search\": [\"1\", \"2\"], \"replace\": [\"3\"]}}\n```\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "`replace_in_file` has 2 `search` but 1 `replace`");
}

TEST(ParseParams, AliasesNormaliseToolAndParameterNames) {
  auto r = parse_text(
      "# Assistant\n```json\n{\"tool\": \"write_to_file\", \"parameters\": {\"file_path\": \"a\","
      " \"content\": \"x\"}}\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a"}, {"content", "x"}}));
}

}  // namespace
}  // namespace toolhost::parse
