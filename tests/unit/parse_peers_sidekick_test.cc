// What llm-sidekick really writes into a chat buffer (the peer-formats issue): shell-named
// terminal headers, one-fence replacements, headers side by side, line ranges, a reply that
// starts on the role line.
#include <gtest/gtest.h>

#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::parse_text;

std::string first_error(const ParseResult& r) {
  return r.errors.empty() ? "" : r.errors[0].message;
}

TEST(PeerSidekick, ShellNamedTerminalHeaders) {
  for (const char* shell : {"zsh", "fish", "sh", "bash"}) {
    auto r = parse_text(std::string("ASSISTANT: ok\n**") + shell + "**\n```" + shell +
                        "\nls -la\n```\n> list\n");
    ASSERT_EQ(r.calls.size(), 1u) << shell;
    EXPECT_EQ(r.calls[0].tool, "run_terminal_command");
    EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"command", "ls -la"}, {"purpose", "list"}}));
  }
  auto prose = parse_text("ASSISTANT: ok\n**perl**\n```\nls\n```\n");
  EXPECT_TRUE(prose.calls.empty());
}

TEST(PeerSidekick, OneFenceReplacementUnderTheHeaderOrAfterABlankLine) {
  for (const char* gap : {"", "\n"}) {
    auto r = parse_text(std::string("ASSISTANT: ok\n**Replace:** `a.py`\n") + gap +
                        "```python\ndef f():\n    return 1\n\ndef f():\n    return 2\n```\n");
    ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
    EXPECT_EQ(r.calls[0].tool, "replace_in_file");
    EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.py"},
                                                 {"search", {"def f():\n    return 1"}},
                                                 {"replace", {"def f():\n    return 2"}}}));
  }
}

TEST(PeerSidekick, PathHeaderWithOneFenceIsTheSameEdit) {
  auto r = parse_text("ASSISTANT: ok\n**Path:** `c.yaml`\n```yaml\nport: 1\n\nport: 2\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(
      r.calls[0].params,
      (nlohmann::json{{"path", "c.yaml"}, {"search", {"port: 1"}}, {"replace", {"port: 2"}}}));
}

TEST(PeerSidekick, NumberedReplacementsUnderOneHeader) {
  auto r = parse_text(
      "ASSISTANT: ok\n**Replace:** `m.c`\n**Replacement 1:**\n```c\na\n\nb\n```\n\n"
      "**Replacement 2:**\n\n```c\nc\n\nd\n```\n> two edits\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "m.c"},
                                               {"search", {"a", "c"}},
                                               {"replace", {"b", "d"}},
                                               {"purpose", "two edits"}}));
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 17);
}

// Where the old text ends is known only from the file: the call carries one candidate split per
// run of blank lines, and replace_in_file picks the one whose old text occurs once.
TEST(PeerSidekick, SeveralBlankLineRunsCarryTheCandidateSplits) {
  auto r = parse_text("ASSISTANT: ok\n**Replace:** `a`\n```\nx\n\ny\n\nz\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a"},
                            {"search", nlohmann::json::array({{"x", "x\n\ny"}})},
                            {"replace", nlohmann::json::array({{"y\n\nz", "z"}})}}));
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 9);
}

// A run of blank lines splits at its last blank line: the old text keeps the newline it ends
// with (llm-sidekick writes old, a blank line, new), so one run is one split, known at once.
TEST(PeerSidekick, OneRunOfBlankLinesIsOneSplit) {
  auto r = parse_text("ASSISTANT: ok\n**Replace:** `a`\n```\nx\n\n\ny\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a"}, {"search", {"x\n"}}, {"replace", {"y"}}}));
  // Blank lines before any old text are no split.
  auto leading = parse_text("ASSISTANT: ok\n**Replace:** `a`\n```\n\n\n```\n");
  EXPECT_TRUE(leading.calls.empty());
  ASSERT_EQ(leading.errors.size(), 1u);
  EXPECT_EQ(leading.errors[0].message,
            "the replacement fence has no old text before its blank lines");
}

// Regression (fuzz-smoke's hostile input, 100,000 blank-line runs): each candidate copied the
// fence, and the parse asked for gigabytes. Past 32 runs it is an error naming the way out.
TEST(PeerSidekick, AFenceWithTooManyBlankLineRunsIsAnErrorNotGigabytes) {
  std::string fence;
  for (int i = 0; i < 33; ++i) fence += "x\n\n";
  auto r = parse_text("ASSISTANT: ok\n**Replace:** `a`\n```\n" + fence + "y\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "the replacement fence has 33 runs of blank lines, too many to tell its old text "
            "from its new (at most 32): use `**Search:**` and `**Replace:**` fences");
  std::string fewer;
  for (int i = 0; i < 32; ++i) fewer += "x\n\n";
  EXPECT_EQ(parse_text("ASSISTANT: ok\n**Replace:** `a`\n```\n" + fewer + "y\n```\n").calls.size(),
            1u);
}

TEST(PeerSidekick, NumberedReplacementsMixKnownAndCandidateSplits) {
  auto r = parse_text(
      "ASSISTANT: ok\n**Replace:** `m.c`\n**Replacement 1:**\n```c\na\n\nb\n```\n\n"
      "**Replacement 2:**\n```c\nc\n\nd\n\ne\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].params["search"],
            (nlohmann::json{"a", nlohmann::json::array({"c", "c\n\nd"})}));
  EXPECT_EQ(r.calls[0].params["replace"],
            (nlohmann::json{"b", nlohmann::json::array({"d\n\ne", "e"})}));
}

// llm-sidekick drops the blank line and the empty new text when a replacement deletes.
TEST(PeerSidekick, OneFenceWithoutABlankLineDeletes) {
  auto r = parse_text("ASSISTANT: ok\n**Path:** `a`\n```\nx\ny\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a"}, {"search", {"x\ny"}}, {"replace", {""}}}));
}

TEST(PeerSidekick, TwoFenceAndLabeledFormsKeepWorking) {
  auto two = parse_text("ASSISTANT: ok\n**Path:** `a`\n```\nx\n```\n```\ny\n```\n");
  ASSERT_EQ(two.calls.size(), 1u);
  EXPECT_EQ(two.calls[0].params["search"], nlohmann::json({"x"}));
  auto labeled = parse_text(
      "ASSISTANT: ok\n**Replace:** "
      "`a`\n**Search:**\n```\nx\n\ny\n```\n**Replace:**\n```\nz\n```\n");
  ASSERT_EQ(labeled.calls.size(), 1u) << first_error(labeled);
  EXPECT_EQ(labeled.calls[0].params["search"], nlohmann::json({"x\n\ny"}));
}

TEST(PeerSidekick, SeveralHeadersOnOneLineAreParts) {
  auto r = parse_text("ASSISTANT: ok\n**Read:** `a.lua`**Read:** `b.lua` **ls:** `src`\n");
  ASSERT_EQ(r.calls.size(), 3u) << first_error(r);
  EXPECT_EQ(r.calls[0].params, (nlohmann::json{{"path", "a.lua"}}));
  EXPECT_EQ(r.calls[1].params, (nlohmann::json{{"path", "b.lua"}}));
  EXPECT_EQ(r.calls[2].tool, "list_directory");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.calls[i].part, i + 1);
    EXPECT_EQ(r.calls[i].start, 1);
    EXPECT_EQ(r.calls[i].end, 2);
  }
  EXPECT_EQ(r.calls[0].column, 0);
  EXPECT_EQ(r.calls[1].column, 17);
  EXPECT_NE(r.calls[0].id, r.calls[1].id);
}

TEST(PeerSidekick, PartsOnOneLineFinishWithResultBlocksByPart) {
  auto r = parse_text(
      "ASSISTANT: ok\n**Read:** `a`**Read:** `b`\n"
      "````result id=th-2 tool=read_file status=succeeded duration=0.01s part=2\nb\n````\n");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].status, Status::Pending);
  EXPECT_EQ(r.calls[1].status, Status::Succeeded);
}

TEST(PeerSidekick, TextAfterSideBySideHeadersMakesProse) {
  auto r = parse_text("ASSISTANT: ok\n**Read:** `a`**Read:** `b` and then more\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(PeerSidekick, FenceHeadersCannotShareALine) {
  auto r = parse_text("ASSISTANT: ok\n**Read:** `a`**Write:** `b`\n```\nx\n```\n");
  EXPECT_TRUE(r.calls.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("several headers on one line"), std::string::npos);
}

TEST(PeerSidekick, ReadLineRanges) {
  auto r = parse_text(
      "ASSISTANT: ok\n**Read:** `a.lua:3-5`\n\n**Read:** `b.lua:7`\n\n**Read:** `c:d`\n");
  ASSERT_EQ(r.calls.size(), 3u);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a.lua"}, {"start_line", 3}, {"end_line", 5}}));
  EXPECT_EQ(r.calls[1].params,
            (nlohmann::json{{"path", "b.lua"}, {"start_line", 7}, {"end_line", 7}}));
  EXPECT_EQ(r.calls[2].params, (nlohmann::json{{"path", "c:d"}}));
}

TEST(PeerSidekick, InsertBlockIsAnInsertIntoFileCall) {
  auto r = parse_text(
      "ASSISTANT: ok\n**Insert:** `a.lua:12`\n```lua\nlocal x = 1\n```\n> guard\nafter\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].tool, "insert_into_file");
  EXPECT_EQ(
      r.calls[0].params,
      (nlohmann::json{
          {"path", "a.lua"}, {"line", 12}, {"content", "local x = 1"}, {"purpose", "guard"}}));
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 6);
  auto top = parse_text("ASSISTANT: ok\n**Insert:** `dir/a:b.txt:0`\n\n````text\nx\n````\n");
  ASSERT_EQ(top.calls.size(), 1u) << first_error(top);
  EXPECT_EQ(top.calls[0].params["path"], "dir/a:b.txt");
  EXPECT_EQ(top.calls[0].params["line"], 0);
}

TEST(PeerSidekick, InsertWithoutALineOrAFenceIsAnError) {
  auto no_line = parse_text("ASSISTANT: ok\n**Insert:** `a.lua`\n```lua\nx\n```\nafter\n");
  EXPECT_TRUE(no_line.calls.empty());
  ASSERT_EQ(no_line.errors.size(), 1u);
  EXPECT_EQ(no_line.errors[0].message,
            "`**Insert:**` needs `path:N`, the line to insert after (0: at the top)");
  EXPECT_EQ(no_line.errors[0].start, 1);
  EXPECT_EQ(no_line.errors[0].end, 5);
  auto no_fence = parse_text("ASSISTANT: ok\n**Insert:** `a.lua:3`\nsome prose\n");
  EXPECT_TRUE(no_fence.calls.empty());
  ASSERT_EQ(no_fence.errors.size(), 1u);
  EXPECT_EQ(no_fence.errors[0].message,
            "`**Insert:**` without the fence holding the text to insert");
}

TEST(PeerSidekick, ExecutedInsertIsReadBackWithItsLine) {
  auto r = parse_text(
      "ASSISTANT: ok\n✓ Inserted into: `a.lua:12`\n```lua\nlocal x = 1\n```\n"
      "````result id=th-5 tool=insert_into_file status=succeeded duration=0.01s\nok\n````\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_TRUE(r.calls[0].executed_form);
  EXPECT_EQ(r.calls[0].status, Status::Succeeded);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a.lua"}, {"line", 12}, {"content", "local x = 1"}}));
  // The same id as the call before it ran, so history matches it.
  auto pending = parse_text("ASSISTANT: ok\n**Insert:** `a.lua:12`\n```lua\nlocal x = 1\n```\n");
  ASSERT_EQ(pending.calls.size(), 1u);
  EXPECT_EQ(pending.calls[0].id, r.calls[0].id);
}

TEST(PeerSidekick, BlockOnTheRoleLine) {
  auto r =
      parse_text("USER: fix it\nASSISTANT: **Path:** `config.yaml`\n```yaml\na: 1\n\na: 2\n```\n");
  ASSERT_EQ(r.calls.size(), 1u) << first_error(r);
  EXPECT_EQ(r.calls[0].tool, "replace_in_file");
  EXPECT_EQ(r.calls[0].start, 1);
  EXPECT_EQ(r.calls[0].end, 7);
  EXPECT_EQ(r.calls[0].column, 11);
  EXPECT_EQ(r.calls[0].params["path"], "config.yaml");
  // The same text on the next line is the same call (same id).
  auto next_line =
      parse_text("USER: fix it\nASSISTANT:\n**Path:** `config.yaml`\n```yaml\na: 1\n\na: 2\n```\n");
  ASSERT_EQ(next_line.calls.size(), 1u);
  EXPECT_EQ(next_line.calls[0].id, r.calls[0].id);
  EXPECT_EQ(next_line.calls[0].column, 0);
}

TEST(PeerSidekick, RoleLineBlockFinishesByItsResultBlock) {
  auto r = parse_text(
      "ASSISTANT: **Read:** `a`\n"
      "````result id=th-3 tool=read_file status=succeeded duration=0.01s\nx\n````\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].status, Status::Succeeded);
  EXPECT_EQ(r.calls[0].result->start, 1);
}

TEST(PeerSidekick, ExecutedOneFenceReplacementKeepsItsPairs) {
  auto r = parse_text(
      "ASSISTANT: ok\n✓ Replaced in: `a`\n```\nx\n\ny\n```\n"
      "````result id=th-4 tool=replace_in_file status=succeeded duration=0.01s\nok\n````\n");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_TRUE(r.calls[0].executed_form);
  EXPECT_EQ(r.calls[0].params,
            (nlohmann::json{{"path", "a"}, {"search", {"x"}}, {"replace", {"y"}}}));
}

TEST(PeerSidekick, CrlfAndTrailingSpaces) {
  auto r = parse_text(
      "USER: hi\r\nASSISTANT: ok\r\n**zsh**  \r\n```zsh\r\nls\r\n```\r\n**Read:** `a`  \r\n");
  ASSERT_EQ(r.messages.size(), 2u);
  ASSERT_EQ(r.calls.size(), 2u) << first_error(r);
  EXPECT_EQ(r.calls[1].params["path"], "a");
}

// What llm-sidekick writes once it ran a call itself is its business: text, never a call.
TEST(PeerSidekick, SidekicksOwnExecutedLinesAreText) {
  auto r = parse_text(
      "ASSISTANT: ok\n✓ Updated src/a.c (-1/+1)\n✓ **Read:** `a.lua`\n✗ **Read:** `b.lua`\n");
  EXPECT_TRUE(r.calls.empty());
  EXPECT_TRUE(r.errors.empty());
}

}  // namespace
}  // namespace toolhost::parse
