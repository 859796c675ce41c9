// Malformed blocks: an error with the exact line, never a call; `incomplete` while streaming.
#include <gtest/gtest.h>

#include "parse/call_id.h"
#include "parse/print.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

TEST(ParseErrors, UnclosedFenceInCompleteMessageIsError) {
  auto r = parse_text("ASSISTANT: go\n**bash**\n```\nmake\nUSER: next\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].start, 1);
  EXPECT_EQ(r.errors[0].end, 4);
  EXPECT_EQ(r.errors[0].line, 2);
  EXPECT_EQ(r.errors[0].message, "unclosed fence");
  EXPECT_EQ(error_text(r.errors[0]), "line 3: unclosed fence");
}

TEST(ParseErrors, UnclosedFenceAtEndWhileStreamingIsIncomplete) {
  auto r = parse_text("ASSISTANT: go\n**Write:** `a`\n```\npartial", /*complete=*/false);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].status, Status::Incomplete);
  EXPECT_EQ(r.calls[0].tool, "create_or_replace_file");
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 4);
}

TEST(ParseErrors, UnclosedXmlWhileStreamingIsIncomplete) {
  auto r = parse_text("## CodeCompanion\n```xml\n<tools><tool name=\"cmd_", false);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].status, Status::Incomplete);
  EXPECT_EQ(r.calls[0].dialect, Dialect::CodeCompanion);
  EXPECT_TRUE(r.errors.empty());
}

TEST(ParseErrors, UnclosedFenceBeforeAnotherMessageIsErrorEvenWhileStreaming) {
  auto r = parse_text("ASSISTANT: go\n**bash**\n```\nmake\nUSER: next\n", false);
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
}

TEST(ParseErrors, UnknownToolAndMissingParameter) {
  auto r = parse_text(
      "ASSISTANT: go\n```json\n{\"tool\": \"no_such_tool\", \"parameters\": {}}\n```\n"
      "```json\n{\"tool\": \"read_file\",\n\"parameters\": {}}\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].message, "unknown tool `no_such_tool`");
  EXPECT_EQ(r.errors[0].line, 2);
  EXPECT_EQ(r.errors[1].message, "`read_file` is missing required parameter `path`");
  EXPECT_EQ(r.errors[1].start, 4);
  EXPECT_EQ(r.errors[1].end, 8);
  EXPECT_EQ(r.errors[1].line, 5);
}

TEST(ParseErrors, MalformedFixtureHasEveryCaseAtItsLine) {
  auto lines = testing::lines_of(testing::read_file(testing::fixture_path("malformed.chat.md")));
  auto r = parse(lines, testing::default_options());
  ASSERT_EQ(r.errors.size(), 5u);
  const int expected_lines[] = {4, 10, 14, 18, 24};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(r.errors[i].line, expected_lines[i]) << i;
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params["path"], "../../etc/passwd");
  // While the reply streams, the unclosed fence at its end is incomplete instead.
  auto streaming = parse(lines, testing::default_options(false));
  EXPECT_EQ(streaming.errors.size(), 4u);
  ASSERT_EQ(streaming.calls.size(), 2u);
  EXPECT_EQ(streaming.calls[1].status, Status::Incomplete);
}

// Hostile chat text: JSON nested 100,000 deep once overflowed the host's stack (canonical
// JSON for the call id is recursive). Too deep is an error, never a crash.
TEST(ParseErrors, JsonNestedTooDeepIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto r = parse_text(
      "ASSISTANT: x\n```json\n{\"tool\": \"read_file\", \"parameters\": "
      "{\"path\": \"a\", \"x\": " +
      deep + "}}\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "the JSON is nested deeper than 256 levels");
  // Arguments sent as a JSON string are held to the same bound.
  std::string quoted;
  for (char c : deep) quoted += c;
  auto s = parse_text(
      "ASSISTANT: x\n```json\n{\"name\": \"read_file\", \"arguments\": "
      "\"{\\\"path\\\": \\\"a\\\", \\\"x\\\": " +
      quoted + "}\"}\n```\n");
  EXPECT_TRUE(s.calls.empty());
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.errors[0].message, "the arguments of `read_file` are nested deeper than 256 levels");
  // Nesting within the bound is an ordinary parameter.
  const std::string fine = std::string(200, '[') + std::string(200, ']');
  auto t = parse_text(
      "ASSISTANT: x\n```json\n{\"tool\": \"read_file\", \"parameters\": "
      "{\"path\": \"a\", \"x\": " +
      fine + "}}\n```\n");
  EXPECT_EQ(t.calls.size(), 1u);
  EXPECT_TRUE(t.errors.empty());
}

TEST(ParseIds, StableAcrossEditsAboveAndCountIdenticalCalls) {
  auto a = parse_text("ASSISTANT: go\n**Read:** `a`\n**Read:** `a`\n> why\n");
  auto b = parse_text("USER: hi\nASSISTANT: go\nmore text\n\n**Read:** `a`\n**Read:** `a`\n");
  ASSERT_EQ(a.calls.size(), 2u);
  ASSERT_EQ(b.calls.size(), 2u);
  EXPECT_NE(a.calls[0].id, a.calls[1].id);
  EXPECT_EQ(a.calls[0].id, b.calls[0].id);
  EXPECT_EQ(a.calls[1].id, b.calls[1].id);  // purpose is not part of the id
  EXPECT_EQ(a.calls[0].id, call_id_from_hash(call_content_hash("read_file", {{"path", "a"}}), 0));
  EXPECT_EQ(a.calls[0].id.size(), 12u);
}

}  // namespace
}  // namespace toolhost::parse
