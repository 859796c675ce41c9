// What an MCP tool is called in toolhost, and how a tools/call result reads: pure functions.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mcp/call_outcome.h"
#include "mcp/tool_names.h"

namespace toolhost::mcp {
namespace {

TEST(McpToolNames, ServerAndToolJoinWithTwoUnderscores) {
  EXPECT_EQ(qualified_tool_name("everything", "get-sum"), "everything__get-sum");
  EXPECT_EQ(qualified_tool_name("my server", "ünï/cøde.v2"), "my_server____n___c__de.v2");
}

TEST(McpToolNames, ALongNameIsCutTo64) {
  std::string name = qualified_tool_name(std::string(40, 's'), std::string(40, 't'));
  EXPECT_EQ(name.size(), kMaxToolNameLength);
  EXPECT_EQ(name, std::string(40, 's') + "__" + std::string(22, 't'));
}

TEST(McpToolNames, DistinctNamesStayAsTheyAre) {
  EXPECT_EQ(qualified_tool_names({{"a", "x"}, {"b", "x"}}),
            (std::vector<std::string>{"a__x", "b__x"}));
}

TEST(McpToolNames, AClashGetsAShortHashOnEveryClashingName) {
  std::vector<std::string> names =
      qualified_tool_names({{"a", "read file"}, {"a", "read_file"}, {"a", "other"}});
  ASSERT_EQ(names.size(), 3u);
  EXPECT_NE(names[0], names[1]);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(names[i].rfind("a__read_file_", 0), 0u) << names[i];
    EXPECT_EQ(names[i].size(), std::string("a__read_file_").size() + 6);
  }
  EXPECT_EQ(names[2], "a__other");
  // The same pairs in another order get the same names.
  std::vector<std::string> swapped =
      qualified_tool_names({{"a", "other"}, {"a", "read_file"}, {"a", "read file"}});
  EXPECT_EQ(swapped[1], names[1]);
  EXPECT_EQ(swapped[2], names[0]);
}

TEST(McpToolNames, NamesCutToTheSamePrefixStayDistinctAndWithinTheLimit) {
  std::string server(70, 's');
  std::vector<std::string> names = qualified_tool_names({{server, "a"}, {server, "b"}});
  EXPECT_NE(names[0], names[1]);
  for (const auto& name : names) EXPECT_EQ(name.size(), kMaxToolNameLength);
}

TEST(McpToolNames, TheSamePairTwiceStillGetsTwoNames) {
  std::vector<std::string> names = qualified_tool_names({{"a", "x"}, {"a", "x"}});
  EXPECT_NE(names[0], names[1]);
}

TEST(McpCallOutcome, TextBlocksJoinAndALinkIsItsUri) {
  CallOutcome outcome = outcome_from_result(Json::parse(R"({"content":[
      {"type":"text","text":"one"},
      {"type":"resource_link","uri":"file:///tmp/a.txt","name":"a"},
      {"type":"text","text":"two"}]})"));
  EXPECT_EQ(outcome.status, CallOutcome::Status::kOk);
  EXPECT_EQ(outcome.text, "one\nfile:///tmp/a.txt\ntwo");
}

TEST(McpCallOutcome, ImagesAndAudioAreNotedByTypeAndSizeAndKept) {
  CallOutcome outcome = outcome_from_result(Json::parse(R"({"content":[
      {"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="},
      {"type":"audio","mimeType":"audio/wav","data":"AAAA"}]})"));
  EXPECT_EQ(outcome.text, "[image image/png, 8 bytes]\n[audio audio/wav, 3 bytes]");
  ASSERT_EQ(outcome.media.size(), 2u);
  EXPECT_EQ(outcome.media[0].base64, "iVBORw0KGgo=");
}

TEST(McpCallOutcome, StructuredContentIsTheTextOnlyWhenThereIsNoText) {
  CallOutcome bare = outcome_from_result(Json::parse(R"({"structuredContent":{"sum":3}})"));
  EXPECT_EQ(bare.text, "{\n  \"sum\": 3\n}");
  CallOutcome both = outcome_from_result(
      Json::parse(R"({"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}})"));
  EXPECT_EQ(both.text, "3");
  EXPECT_EQ(both.structured["sum"], 3);
}

TEST(McpCallOutcome, IsErrorMakesAToolErrorAndANonObjectFails) {
  EXPECT_EQ(outcome_from_result(Json::parse(R"({"content":[],"isError":true})")).status,
            CallOutcome::Status::kToolError);
  CallOutcome odd = outcome_from_result(Json::array());
  EXPECT_EQ(odd.status, CallOutcome::Status::kFailed);
  EXPECT_EQ(odd.text, "the server's tools/call result is not an object");
}

TEST(McpCallOutcome, AnEmbeddedResourceShowsItsTextOrItsUri) {
  CallOutcome outcome = outcome_from_result(Json::parse(R"({"content":[
      {"type":"resource","resource":{"uri":"x://a","text":"inline"}},
      {"type":"resource","resource":{"uri":"x://b","blob":"AAAA"}}]})"));
  EXPECT_EQ(outcome.text, "inline\n[resource x://b]");
}

}  // namespace
}  // namespace toolhost::mcp
