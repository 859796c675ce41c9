// Transcripts with MCP servers' tools (SPEC 13.3), parsed with a table that holds them: the forms
// mcphub wrote into CodeCompanion chats (its `mcp` tool before 5.0, `use_mcp_tool` since), a JSON
// fence, and the sidekick `**Tool:**` header with its executed forms. Each must give its reviewed
// expectation, as `toolhost parse --json` prints it.
#include <gtest/gtest.h>

#include "parse/print.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

class McpFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(McpFixture, MatchesExpectedJson) {
  const std::string base = std::string(TOOLHOST_FIXTURES) + "/" + GetParam();
  auto lines = testing::lines_of(testing::read_file(base + ".chat.md"));
  ASSERT_FALSE(lines.empty());
  nlohmann::json actual = to_json(parse(lines, testing::mcp_options()));
  nlohmann::json expected = nlohmann::json::parse(testing::read_file(base + ".expected.json"));
  EXPECT_EQ(actual, expected) << "actual:\n" << actual.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Mcp, McpFixture,
                         ::testing::Values("peers/mcphub-2025-04", "parse/mcp-sidekick"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-' || c == '/') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace toolhost::parse
