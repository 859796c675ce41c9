// The edits llm-sidekick's own prompt examples teach a model to write (issue #37). Its
// replace-in-file tool's example reads ``**Path:**: `config.yaml` `` (a stray colon after the
// label), and models copy what they are shown, on the reply's role line as well: such a block
// starts like a call, so it is a call or an error, never silently nothing (SPEC 3.1).
#include <gtest/gtest.h>

#include "parse/incremental.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

std::string prompt_error(const ParseResult& r) {
  return r.errors.empty() ? "" : r.errors[0].message;
}

// The prompt's example, as a model repeats it.
constexpr const char* kPromptEdit =
    "**Path:**: `config.yaml`\n"
    "**Search:**\n"
    "```yaml\n"
    "  app_name: My App\n"
    "```\n"
    "**Replace:**\n"
    "```yaml\n"
    "  app_name: My App\n"
    "  enable_new_feature: true\n"
    "```\n";

const nlohmann::json kPromptParams = {
    {"path", "config.yaml"},
    {"search", {"  app_name: My App"}},
    {"replace", {"  app_name: My App\n  enable_new_feature: true"}}};

TEST(PeerPrompt, PathHeaderWithTheStrayColonIsAnEdit) {
  auto r = parse_text(std::string("USER: fix it\nASSISTANT: Here it is.\n") + kPromptEdit);
  ASSERT_EQ(r.calls.size(), 1u) << prompt_error(r);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.calls[0].tool, "replace_in_file");
  EXPECT_EQ(r.calls[0].params, kPromptParams);
  EXPECT_EQ(r.calls[0].start, 2);
  EXPECT_EQ(r.calls[0].end, 12);
}

TEST(PeerPrompt, StrayColonHeaderOnTheRoleLineIsTheSameEdit) {
  auto r = parse_text(std::string("USER: fix it\nASSISTANT: ") + kPromptEdit);
  ASSERT_EQ(r.calls.size(), 1u) << prompt_error(r);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.calls[0].tool, "replace_in_file");
  EXPECT_EQ(r.calls[0].params, kPromptParams);
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 11);
  EXPECT_EQ(r.calls[0].column, 11);
  // Written as llm-sidekick's own pattern reads it, it is the same call (the same id).
  std::string body = kPromptEdit;
  body = body.substr(body.find('\n') + 1);
  auto plain = parse_text("USER: fix it\nASSISTANT: **Path:** `config.yaml`\n" + body);
  ASSERT_EQ(plain.calls.size(), 1u) << prompt_error(plain);
  EXPECT_EQ(plain.calls[0].id, r.calls[0].id);
}

// Streamed in line by line, as a chat plugin writes the reply, it ends as the same call.
TEST(PeerPrompt, StrayColonEditStreamedIntoTheRoleLine) {
  const std::string text = std::string("USER: fix it\nASSISTANT: ") + kPromptEdit;
  auto lines = testing::lines_of(text);
  IncrementalParser parser(testing::default_options(false));
  parser.reset({lines[0], "ASSISTANT: "});
  for (size_t row = 1; row < lines.size(); ++row) {
    parser.apply(static_cast<int>(row), static_cast<int>(row) + 1, {lines[row]});
    if (row + 1 < lines.size())
      parser.apply(static_cast<int>(row) + 1, static_cast<int>(row) + 1, {""});
  }
  parser.set_complete(true);
  ASSERT_EQ(parser.result().calls.size(), 1u);
  EXPECT_TRUE(parser.result().errors.empty());
  EXPECT_EQ(parser.result().calls[0].params, kPromptParams);
  EXPECT_EQ(parser.result().calls[0].id, parse_text(text).calls[0].id);
}

// The stray colon is the label's, whichever label: the other headers read the same.
TEST(PeerPrompt, StrayColonAfterOtherLabels) {
  auto r = parse_text(
      "ASSISTANT: **Read:**: `a.c`\n"
      "**Execute:**: `make`\n"
      "> build\n"
      "**Write:**: `b.txt`\n"
      "```\nhello\n```\n");
  ASSERT_EQ(r.calls.size(), 3u) << prompt_error(r);
  EXPECT_EQ(r.calls[0].tool, "read_file");
  EXPECT_EQ(r.calls[0].params["path"], "a.c");
  EXPECT_EQ(r.calls[1].tool, "run_terminal_command");
  EXPECT_EQ(r.calls[1].params["command"], "make");
  EXPECT_EQ(r.calls[2].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[2].params["content"], "hello");
}

// Without its fences the header still started a call: the user sees an error at it.
TEST(PeerPrompt, StrayColonHeaderWithoutItsFencesIsAnError) {
  for (const char* reply : {"ASSISTANT: **Path:**: `config.yaml`\nDone.\n",
                            "ASSISTANT: ok\n**Path:**: `config.yaml`\nDone.\n"}) {
    auto r = parse_text(reply);
    EXPECT_TRUE(r.calls.empty()) << reply;
    ASSERT_EQ(r.errors.size(), 1u) << reply;
    EXPECT_NE(r.errors[0].message.find("replacement header without its fences"), std::string::npos)
        << r.errors[0].message;
  }
}

// An older llm-sidekick prompt taught `**Find:**` where the later one says `**Search:**`.
TEST(PeerPrompt, FindLabelIsTheOldTextAsSearchIs) {
  auto r = parse_text(
      "ASSISTANT: **Path:**: `config.yaml`\n**Find:**\n```yaml\na: 1\n```\n**Replace:**\n```yaml\n"
      "a: 2\n```\n**Find:**\n```yaml\nb: 1\n```\n**Replace:**\n```yaml\nb: 2\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << prompt_error(r);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "config.yaml"},
                                               {"search", {"a: 1", "b: 1"}},
                                               {"replace", {"a: 2", "b: 2"}}}));
  auto lone = parse_text("ASSISTANT: ok\n**Path:** `a`\n**Find:**\n```\nx\n```\nDone.\n");
  EXPECT_TRUE(lone.calls.empty());
  ASSERT_EQ(lone.errors.size(), 1u);
  EXPECT_EQ(lone.errors[0].message, "`**Find:**` without `**Replace:**`");
}

// Only one stray colon is the typo; other text after the label is prose, as before.
TEST(PeerPrompt, OtherTextAfterTheLabelStaysProse) {
  auto r =
      parse_text("ASSISTANT: ok\n**Path:**:: `a`\n**Path:**:`a`\n**Path:** : `a`\n**Path:**: a\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty()) << prompt_error(r);
}

}  // namespace
}  // namespace toolhost::parse
