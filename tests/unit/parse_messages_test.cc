#include <gtest/gtest.h>

#include "parse/messages.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

TEST(ParseMessages, RoleHeadersOfEverySyntax) {
  RoleNames roles;
  EXPECT_EQ(role_header("## Me", roles), Role::User);
  EXPECT_EQ(role_header("## CodeCompanion (Copilot)", roles), Role::Assistant);
  EXPECT_EQ(role_header("# Assistant", roles), Role::Assistant);
  EXPECT_EQ(role_header("USER: hello", roles), Role::User);
  EXPECT_EQ(role_header("ASSISTANT:", roles), Role::Assistant);
  EXPECT_EQ(role_header("SYSTEM: be careful", roles), Role::System);
  EXPECT_EQ(role_header("LLM: hi", roles), Role::Assistant);
}

TEST(ParseMessages, LookalikesAreText) {
  RoleNames roles;
  EXPECT_EQ(role_header("# User guide", roles), std::nullopt);
  EXPECT_EQ(role_header("## CodeCompanion (Copilot", roles), std::nullopt);
  EXPECT_EQ(role_header(" USER: indented", roles), std::nullopt);
  EXPECT_EQ(role_header("MODEL: gpt", roles), std::nullopt);
  EXPECT_EQ(role_header("MAX_TOKENS: 10", roles), std::nullopt);
  EXPECT_EQ(role_header("Note: text", roles), std::nullopt);
  EXPECT_EQ(role_header("", roles), std::nullopt);
}

TEST(ParseMessages, SettingsLinesAreNotMessages) {
  auto result = parse_text("MODEL: m\nSTREAM: true\nTEMPERATURE: 0\nUSER: hi\nASSISTANT: yo\n");
  ASSERT_EQ(result.messages.size(), 2u);
  EXPECT_EQ(result.messages[0].role, Role::User);
  EXPECT_EQ(result.messages[0].start, 3);
  EXPECT_EQ(result.messages[0].end, 4);
  EXPECT_EQ(result.messages[1].role, Role::Assistant);
  EXPECT_EQ(result.messages[1].start, 4);
  EXPECT_EQ(result.messages[1].end, 5);
}

TEST(ParseMessages, ClosedFenceIsOpaqueToHeaders) {
  auto result = parse_text("## Me\n```\n## CodeCompanion\n```\ntext\n");
  ASSERT_EQ(result.messages.size(), 1u);
  EXPECT_EQ(result.messages[0].end, 5);
}

TEST(ParseMessages, UnclosedFenceEndsAtNextHeader) {
  auto result = parse_text("## CodeCompanion\n```bash\necho\n## Me\nhello\n");
  ASSERT_EQ(result.messages.size(), 2u);
  EXPECT_EQ(result.messages[0].end, 3);
  EXPECT_EQ(result.messages[1].role, Role::User);
}

TEST(ParseMessages, RoleNamesAreConfigurable) {
  Options options = testing::default_options();
  options.roles.user = {"Human"};
  options.roles.assistant = {"Bot"};
  auto result = parse(testing::lines_of("## Human\nhi\n## Bot\n**Read:** `a`\n## Me\n"), options);
  ASSERT_EQ(result.messages.size(), 2u);
  EXPECT_EQ(result.messages[1].role, Role::Assistant);
  EXPECT_EQ(result.messages[1].end, 5);  // `## Me` is ordinary text now
  ASSERT_EQ(result.calls.size(), 1u);
  EXPECT_EQ(result.calls[0].message, 1);
}

TEST(ParseMessages, CallsOnlyInAssistantMessages) {
  auto result =
      parse_text("USER: x\n**Read:** `a`\nSYSTEM: y\n**Read:** `b`\nASSISTANT: z\n**Read:** `c`\n");
  ASSERT_EQ(result.calls.size(), 1u);
  EXPECT_EQ(result.calls[0].params["path"], "c");
  EXPECT_EQ(result.calls[0].message, 2);
}

}  // namespace
}  // namespace toolhost::parse
