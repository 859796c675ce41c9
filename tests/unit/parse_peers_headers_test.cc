// Role headers as the chat plugins really write them, and one header style per buffer.
#include <gtest/gtest.h>

#include "parse/incremental.h"
#include "parse/messages.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::lines_of;
using testing::parse_text;

TEST(PeerHeaders, CodeCompanionSeparatorAndTrailingSpaces) {
  RoleNames roles;
  EXPECT_EQ(role_header("## Me ─", roles), Role::User);
  EXPECT_EQ(role_header("## Me ────────────", roles), Role::User);
  EXPECT_EQ(role_header("## CodeCompanion (Copilot) ─", roles), Role::Assistant);
  EXPECT_EQ(role_header("## CodeCompanion (Copilot)   ", roles), Role::Assistant);
  EXPECT_EQ(role_header("## Me  \r", roles), Role::User);
  EXPECT_EQ(role_header("# Assistant ", roles), Role::Assistant);
  EXPECT_EQ(role_header("## Me ─ notes", roles), std::nullopt);
  // `separator` is configurable.
  EXPECT_EQ(role_header("## Me ----------", roles), Role::User);
  EXPECT_EQ(role_header("## CodeCompanion (Claude) ━━━━", roles), Role::Assistant);
  EXPECT_EQ(role_header("## Me──", roles), std::nullopt);
  EXPECT_EQ(role_header("## Me 2", roles), std::nullopt);
  EXPECT_EQ(role_header("## Meeting", roles), std::nullopt);
}

TEST(PeerHeaders, HeaderRestIsTheReplyOnTheRoleLine) {
  EXPECT_EQ(header_rest("ASSISTANT: **Read:** `a`"), "**Read:** `a`");
  EXPECT_EQ(header_rest("ASSISTANT:"), "");
  EXPECT_EQ(header_rest("## CodeCompanion"), "");
}

TEST(PeerHeaders, FiletypeDecidesTheStyle) {
  EXPECT_EQ(header_style_for("codecompanion"), HeaderStyle::Headings);
  EXPECT_EQ(header_style_for("llm-sidekick"), HeaderStyle::Names);
  EXPECT_EQ(header_style_for("markdown"), HeaderStyle::Auto);
}

// A user pasted an llm-sidekick transcript into their own CodeCompanion message.
constexpr const char* kPastedIntoCodeCompanion =
    "## Me ─\n"
    "Why did this run?\n"
    "ASSISTANT: sure\n"
    "**bash**\n"
    "```bash\n"
    "rm -rf build\n"
    "```\n"
    "## CodeCompanion (Copilot) ─\n"
    "It did not.\n";

TEST(PeerHeaders, HeadingBufferDoesNotSplitOnNames) {
  auto r = parse_text(kPastedIntoCodeCompanion);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, Role::User);
  EXPECT_EQ(r.messages[0].end, 7);
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(PeerHeaders, NameBufferDoesNotSplitOnHeadings) {
  auto r = parse_text(
      "USER: plan it\nASSISTANT: Here is the plan.\n## Me\nfirst\n**Read:** `a.c`\nUSER: ok\n");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].role, Role::Assistant);
  EXPECT_EQ(r.messages[1].end, 5);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params["path"], "a.c");
}

TEST(PeerHeaders, FiletypeStyleWinsOverTheFirstHeader) {
  Options options = testing::default_options();
  options.header_style = HeaderStyle::Headings;
  auto r =
      parse(lines_of("ASSISTANT: x\n**Read:** `a`\n## CodeCompanion\n**Read:** `b`\n"), options);
  ASSERT_EQ(r.messages.size(), 1u);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params["path"], "b");
}

TEST(PeerHeaders, EditingTheFirstHeaderChangesTheStyleIncrementally) {
  IncrementalParser parser(testing::default_options());
  parser.reset(lines_of(kPastedIntoCodeCompanion));
  ASSERT_TRUE(parser.result().calls.empty());
  // The heading becomes a name header: the buffer is llm-sidekick's now, the pasted reply a
  // message with a call.
  parser.apply(0, 1, {"USER: Why did this run?"});
  EXPECT_EQ(parser.result().messages.size(), 2u);
  ASSERT_EQ(parser.result().calls.size(), 1u);
  EXPECT_EQ(parser.result().calls[0].params["command"], "rm -rf build");
  EXPECT_EQ(parser.result().calls[0].start, 3);
  auto full = parse(parser.lines(), testing::default_options());
  EXPECT_EQ(full.messages.size(), parser.result().messages.size());
  // And back.
  parser.apply(0, 1, {"## Me ─"});
  EXPECT_TRUE(parser.result().calls.empty());
  EXPECT_EQ(parser.result().messages.size(), 2u);
}

TEST(PeerHeaders, SetHeaderStyleSplitsAgain) {
  IncrementalParser parser(testing::default_options());
  parser.reset(lines_of("ASSISTANT: x\n**Read:** `a`\n## CodeCompanion\n**Read:** `b`\n"));
  ASSERT_EQ(parser.result().calls.size(), 2u);
  ParseDelta delta = parser.set_header_style(HeaderStyle::Headings);
  ASSERT_EQ(parser.result().calls.size(), 1u);
  EXPECT_EQ(delta.removed.size(), 1u);
}

}  // namespace
}  // namespace toolhost::parse
