#include <gtest/gtest.h>

#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

TEST(ParseSidekick, BashBlockWithPurpose) {
  auto r = parse_text(
      "ASSISTANT: go\n**bash**\n\n```sh\nmake\nmake test\n```\n\n> build it\n> twice\ntext\n");
  ASSERT_EQ(r.calls.size(), 1u);
  const ToolCall& c = r.calls[0];
  EXPECT_EQ(c.tool, "run_terminal_command");
  EXPECT_EQ(c.params,
            (nlohmann::json{{"command", "make\nmake test"}, {"purpose", "build it\ntwice"}}));
  EXPECT_EQ(c.dialect, Dialect::Sidekick);
  EXPECT_EQ(c.start, 1);
  EXPECT_EQ(c.end, 10);
  EXPECT_EQ(c.status, Status::Pending);
  EXPECT_EQ(c.part, 0);
  EXPECT_FALSE(c.executed_form);
  EXPECT_FALSE(c.result);
  EXPECT_TRUE(r.errors.empty());
}

// SPEC 12: a header is a call or an error, never silently nothing.
TEST(ParseSidekick, TwoBlankLinesSeparateHeaderFromFenceIsAnError) {
  auto r = parse_text("ASSISTANT: go\n**bash**\n\n\n```\nls\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "a terminal header without the fence holding its command");
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 2);
}

TEST(ParseSidekick, HeaderWithoutItsFenceAtAStreamingEndIsIncomplete) {
  auto r = parse_text("ASSISTANT: go\n**Write:** `a.txt`\n\n", /*complete=*/false);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].status, Status::Incomplete);
  EXPECT_TRUE(r.errors.empty());
  auto done = parse_text("ASSISTANT: go\n**Write:** `a.txt`\n\n");
  ASSERT_EQ(done.errors.size(), 1u);
  EXPECT_EQ(done.errors[0].message, "`**Write:**` without the fence holding the file's content");
}

TEST(ParseSidekick, HeaderWithTextAfterTheSpanIsProse) {
  auto r = parse_text("ASSISTANT: go\n**Read:** `a.c` and then more\n**ls:** `src`\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "list_directory");
  EXPECT_EQ(r.calls[0].start, 2);
  EXPECT_EQ(r.calls[0].end, 3);
}

TEST(ParseSidekick, OlderExecuteWithExplanation) {
  auto r = parse_text("ASSISTANT: go\n  **Execute:** `make test`\n> explanation here\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"command", "make test"}, {"purpose", "explanation here"}}));
  EXPECT_EQ(r.calls[0].end, 3);
}

TEST(ParseSidekick, CreateWithContentLabel) {
  auto r = parse_text("ASSISTANT: go\n**Create:** `a.txt`\n**Content:**\n```\nhi\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.txt"}, {"content", "hi"}}));
  EXPECT_EQ(r.calls[0].end, 6);
}

TEST(ParseSidekick, ReplaceWithSeveralPairs) {
  auto r = parse_text(
      "ASSISTANT: go\n**Replace:** `a.c`\n**Search:**\n```\n1\n```\n**Replace:**\n```\n2\n```\n"
      "\n**Search:**\n```\n3\n```\n\n**Replace:**\n\n```\n4\n```\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a.c"}, {"search", {"1", "3"}}, {"replace", {"2", "4"}}}));
  EXPECT_EQ(r.calls[0].end, 21);
}

TEST(ParseSidekick, SearchWithoutReplaceIsError) {
  auto r = parse_text("ASSISTANT: go\n**Replace:** `a.c`\n**Search:**\n```\n1\n```\nprose\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 6);
  EXPECT_EQ(r.errors[0].line, 2);
  EXPECT_EQ(r.errors[0].message, "`**Search:**` without `**Replace:**`");
}

TEST(ParseSidekick, ResultFenceIsNeverAParameterFence) {
  auto r =
      parse_text("ASSISTANT: go\n**bash**\n````result id=th-1 tool=x status=failed\nout\n````\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].end, 2);  // the header alone: the result block is no part of it
}

TEST(ParseSidekick, BlockFollowedByResultIsFinished) {
  auto r = parse_text(
      "ASSISTANT: go\n**bash**\n```\nfalse\n```\n````result id=th-4 tool=run_terminal_command "
      "status=failed exit=1 duration=0.01s\nExit code: 1\n````\nafter\n");
  ASSERT_EQ(r.calls.size(), 1u);
  const ToolCall& c = r.calls[0];
  EXPECT_EQ(c.status, Status::Failed);
  ASSERT_TRUE(c.result);
  EXPECT_EQ(c.result->start, 5);
  EXPECT_EQ(c.result->end, 8);
  EXPECT_EQ(c.result->job_id, "th-4");
  EXPECT_EQ(c.result->status, "failed");
  EXPECT_EQ(c.end, 5);
}

TEST(ParseSidekick, ExecutedFormsAreFinishedCalls) {
  auto r = parse_text(
      "ASSISTANT: go\n"
      "✓ Wrote: `a.txt`\n```\nhello\n```\n"
      "````result id=th-2 tool=create_or_replace_file status=succeeded duration=0.00s\nWrote 1 "
      "lines\n````\n"
      "✗ Timed out:\n```\nsleep 10\necho `date`\n```\n> nap\n"
      "````result id=th-3 tool=run_terminal_command status=timed_out duration=1.00s\n````\n"
      "✓ Executed: `orphan`\n");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.txt"}, {"content", "hello"}}));
  EXPECT_EQ(r.calls[0].status, Status::Succeeded);
  EXPECT_TRUE(r.calls[0].executed_form);
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 5);
  EXPECT_EQ(r.calls[1].params,
            (nlohmann::json{{"command", "sleep 10\necho `date`"}, {"purpose", "nap"}}));
  EXPECT_EQ(r.calls[1].status, Status::TimedOut);
  EXPECT_EQ(r.calls[1].start, 8);
  EXPECT_EQ(r.calls[1].end, 14);
  EXPECT_EQ(r.calls[1].result->end, 16);
  EXPECT_TRUE(r.errors.empty());  // an executed header without a result is text
}

TEST(ParseSidekick, ExecutedReplaceKeepsItsPairs) {
  auto r = parse_text(
      "ASSISTANT: go\n✗ Failed: `a.c`\n**Search:**\n```\nx\n```\n**Replace:**\n```\ny\n```\n"
      "````result id=th-9 tool=replace_in_file status=failed duration=0.00s\nnot found\n````\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "replace_in_file");
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a.c"}, {"search", {"x"}}, {"replace", {"y"}}}));
  EXPECT_EQ(r.calls[0].status, Status::Failed);
}

TEST(ParseSidekick, FenceRulesFollowCommonMark) {
  // A shorter or info-string line does not close; 3 spaces of indent are allowed, 4 are not.
  auto r =
      parse_text("ASSISTANT: go\n**bash**\n   ````\necho a\n```\n```` not\n    ````\n   `````\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params["command"], "echo a\n```\n```` not\n    ````");
  EXPECT_EQ(r.calls[0].end, 8);
}

}  // namespace
}  // namespace toolhost::parse
