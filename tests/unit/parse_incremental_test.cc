// Property tests: thousands of seeded random edits. After each one the incremental parse equals
// a full parse of the edited buffer, the reported delta accounts for every id, and calls away
// from a prose edit keep their ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "parse/call_id.h"
#include "parse/incremental.h"
#include "parse/print.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

// Lines that make and break every construct: headers, fences, dialect blocks, results.
const std::vector<std::string> kVocabulary = {
    "",
    "some prose",
    "USER: question",
    "ASSISTANT: answer",
    "SYSTEM: rules",
    "MODEL: m",
    "## Me",
    "## CodeCompanion (Copilot)",
    "# Assistant",
    "# User guide",
    "```",
    "````",
    "~~~",
    "```bash",
    "**bash**",
    "echo hi",
    "> purpose",
    "**Read:** `a.c`",
    "**ls:** `src`",
    "**Write:** `b.c`",
    "**Replace:** `c.c`",
    "**Path:**: `c.c`",
    "ASSISTANT: **Path:**: `c.c`",
    "**Search:**",
    "**Find:**",
    "**Replace:**",
    "✓ Executed: `ls`",
    "✗ Failed: `c.c`",
    "````result id=th-1 tool=run_terminal_command status=succeeded exit=0 duration=0.01s",
    "````result id=th-2 tool=read_file status=failed duration=0.01s part=2",
    "Exit code: 0",
    "```xml",
    "<tools><tool name=\"cmd_runner\"><action><command>ls</command></action>"
    "<action><command>pwd</command></action></tool></tools>",
    "<tool><name>read_file</name><parameters><path>x</path></parameters></tool>",
    "<tools><tool name=\"cmd_runner\">",
    "```json",
    "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"a.c\"}}",
    "[{\"name\": \"list_directory\", \"arguments\": \"{\\\"path\\\": \\\"src\\\"}\"}, 3]",
    "{\"tool\": \"nope\", \"parameters\": {}}",
};

// A plausible chat: messages of every dialect, so that edits have calls to hit.
std::vector<std::string> random_buffer(std::mt19937& rng, int messages, int max_blocks = 4) {
  std::vector<std::string> out = {"MODEL: m"};
  const std::vector<std::vector<std::string>> blocks = {
      {"**bash**", "```bash", "echo one", "```", "> say one"},
      {"**Read:** `a.c`"},
      {"**Replace:** `c.c`", "**Search:**", "```", "x", "```", "**Replace:**", "```", "y", "```"},
      {"```xml", "<tools><tool name=\"cmd_runner\"><action><command>ls</command></action>",
       "<action><command>pwd</command></action></tool></tools>", "```"},
      {"```json", "{\"tool\": \"read_file\", \"parameters\": {\"path\": \"a.c\"}}", "```",
       "````result id=th-3 tool=read_file status=succeeded duration=0.01s", "text", "````"},
      {"✓ Executed: `ls`", "> list",
       "````result id=th-1 tool=run_terminal_command status=succeeded exit=0 duration=0.01s",
       "````"},
      {"some prose", ""},
      {"```python", "## Me", "```"},
  };
  const std::vector<std::string> headers = {"USER: hi", "ASSISTANT: ok", "## Me",
                                            "## CodeCompanion", "# Assistant"};
  for (int m = 0; m < messages; ++m) {
    out.push_back(headers[rng() % headers.size()]);
    int count = 1 + static_cast<int>(rng() % static_cast<uint32_t>(max_blocks));
    for (int b = 0; b < count; ++b) {
      const auto& block = blocks[rng() % blocks.size()];
      out.insert(out.end(), block.begin(), block.end());
      out.push_back("");
    }
  }
  return out;
}

nlohmann::json snapshot(const ParseResult& result) {
  nlohmann::json out = to_json(result);
  for (size_t i = 0; i < result.calls.size(); ++i)
    out["calls"][i]["message"] = result.calls[i].message;
  return out;
}

std::multiset<std::string> ids_of(const ParseResult& result) {
  std::multiset<std::string> ids;
  for (const auto& call : result.calls) ids.insert(call.id);
  return ids;
}

int identical_in(const ParseResult& result, uint64_t hash) {
  return static_cast<int>(std::count_if(result.calls.begin(), result.calls.end(), [&](auto& c) {
    return call_content_hash(c.tool, c.params) == hash;
  }));
}

void check_edits(uint32_t seed, int edits, bool complete, int messages = 6, int max_blocks = 4) {
  std::mt19937 rng(seed);
  Options options = testing::default_options(complete);
  IncrementalParser parser(options);
  parser.reset(random_buffer(rng, messages, max_blocks));
  std::vector<std::string> lines = parser.lines();
  for (int e = 0; e < edits; ++e) {
    int n = static_cast<int>(lines.size());
    int first = static_cast<int>(rng() % (n + 1));
    int last = std::min(n, first + static_cast<int>(rng() % 4));
    std::vector<std::string> replacement;
    int added = static_cast<int>(rng() % 4);
    for (int i = 0; i < added; ++i) replacement.push_back(kVocabulary[rng() % kVocabulary.size()]);

    std::multiset<std::string> before = ids_of(parser.result());
    lines.erase(lines.begin() + first, lines.begin() + last);
    lines.insert(lines.begin() + first, replacement.begin(), replacement.end());
    ParseDelta delta = parser.apply(first, last, replacement);

    ASSERT_EQ(parser.lines(), lines);
    ParseResult full = parse(lines, options);
    ASSERT_EQ(snapshot(parser.result()), snapshot(full))
        << "seed " << seed << " edit " << e << ": rows [" << first << ", " << last << ") <- "
        << replacement.size() << " lines";
    for (const auto& call : full.calls) {
      const uint64_t hash = call_content_hash(call.tool, call.params);
      ASSERT_EQ(parser.identical_calls(hash), identical_in(full, hash)) << call.id;
    }
    std::multiset<std::string> after = ids_of(full);
    for (const auto& id : delta.removed) {
      ASSERT_TRUE(before.count(id)) << id;
      ASSERT_FALSE(after.count(id)) << id;
    }
    for (const auto& id : delta.added) {
      ASSERT_FALSE(before.count(id)) << id;
      ASSERT_TRUE(after.count(id)) << id;
    }
    ASSERT_EQ(before.size() - delta.removed.size() + delta.added.size(), after.size());
  }
}

TEST(ParseIncremental, RandomEditsMatchFullParse) {
  for (uint32_t seed = 1; seed <= 40; ++seed) check_edits(seed, 100, true);
}

TEST(ParseIncremental, RandomEditsMatchFullParseWhileStreaming) {
  for (uint32_t seed = 100; seed <= 120; ++seed) check_edits(seed, 100, false);
}

// Identical for the id: same tool and parameters apart from purpose (SPEC 3).
bool twins(const ToolCall& a, const ToolCall& b) {
  auto strip = [](nlohmann::json params) {
    params.erase("purpose");
    params.erase("explanation");
    return params;
  };
  return a.tool == b.tool && strip(a.params) == strip(b.params);
}

// Long messages: an edit inside one re-reads only the blocks it touches (the rest of the
// message is reused), and the result must still be a full parse's.
TEST(ParseIncremental, RandomEditsInsideLongMessagesMatchFullParse) {
  for (uint32_t seed = 200; seed < 240; ++seed) check_edits(seed, 150, true, 2, 40);
  for (uint32_t seed = 300; seed < 320; ++seed) check_edits(seed, 150, false, 2, 40);
}

// What toolhost does to a reply of many calls: a result block written under each call, in the
// order the jobs finish; every call keeps its id and gets its result.
TEST(ParseIncremental, ResultsWrittenUnderManyCallsMatchFullParse) {
  std::mt19937 rng(11);
  Options options = testing::default_options(true);
  std::vector<std::string> lines = {"USER: run them", "ASSISTANT: here"};
  const int calls = 120;
  for (int i = 0; i < calls; ++i) {
    lines.insert(lines.end(), {"", "**bash**", "```bash", "echo " + std::to_string(i % 7), "```"});
  }
  lines.push_back("USER: ");
  IncrementalParser parser(options);
  parser.reset(lines);
  std::vector<std::string> ids;
  for (const auto& call : parser.result().calls) ids.push_back(call.id);
  ASSERT_EQ(ids.size(), static_cast<size_t>(calls));
  std::vector<int> order(calls);
  for (int i = 0; i < calls; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (int k = 0; k < calls; ++k) {
    const ToolCall& call = parser.result().calls[static_cast<size_t>(order[k])];
    const int row = call.end;
    std::vector<std::string> block = {
        "````result id=th-" + std::to_string(k + 1) + " tool=run_terminal_command status=succeeded",
        "out", "````"};
    lines.insert(lines.begin() + row, block.begin(), block.end());
    ParseDelta delta = parser.apply(row, row, block);
    ASSERT_EQ(snapshot(parser.result()), snapshot(parse(lines, options))) << "write " << k;
    EXPECT_TRUE(delta.added.empty());
    EXPECT_TRUE(delta.removed.empty());
  }
  for (int i = 0; i < calls; ++i) {
    EXPECT_EQ(parser.result().calls[static_cast<size_t>(i)].id, ids[static_cast<size_t>(i)]);
    EXPECT_EQ(parser.result().calls[static_cast<size_t>(i)].status, Status::Succeeded);
  }
}

// An agent's chat: many identical calls, one more added above, among or below them (only the
// ones below it are renumbered), then taken away again; the ids are always a full parse's.
TEST(ParseIncremental, IdenticalBlockAddedAnywhereNumbersAsFullParse) {
  std::mt19937 rng(23);
  Options options = testing::default_options(true);
  const std::vector<std::string> block = {"ASSISTANT: again", "**Read:** `a`", ""};
  std::vector<std::string> lines = {"USER: go"};
  for (int i = 0; i < 40; ++i) {
    lines.insert(lines.end(), block.begin(), block.end());
    if (i % 3 == 0) lines.insert(lines.end(), {"ASSISTANT: other", "**ls:** `src`", ""});
  }
  IncrementalParser parser(options);
  parser.reset(lines);
  const uint64_t read_a = call_content_hash("read_file", {{"path", "a"}});
  ASSERT_EQ(parser.identical_calls(read_a), 40);
  const ParseResult original = parser.result();
  for (int round = 0; round < 60; ++round) {
    const int row = static_cast<int>(rng() % (lines.size() + 1));
    std::vector<std::string> edited = lines;
    edited.insert(edited.begin() + row, block.begin(), block.end());
    ParseDelta added = parser.apply(row, row, block);
    ParseResult full = parse(edited, options);
    ASSERT_EQ(snapshot(parser.result()), snapshot(full)) << "row " << row;
    ASSERT_EQ(parser.identical_calls(read_a), identical_in(full, read_a));
    // Whichever block is the new one, the ids of read_file `a` gained only the next k.
    if (identical_in(full, read_a) == 41) {
      EXPECT_EQ(added.added, (std::vector<std::string>{call_id("read_file", {{"path", "a"}}, 40)}));
      EXPECT_TRUE(added.removed.empty());
    }
    ParseDelta removed = parser.apply(row, row + static_cast<int>(block.size()), {});
    ASSERT_EQ(snapshot(parser.result()), snapshot(original)) << "row " << row;
    EXPECT_EQ(removed.removed, added.added);
  }
}

TEST(ParseIncremental, ProseEditsKeepIdsOfUntouchedCalls) {
  std::mt19937 rng(7);
  Options options = testing::default_options();
  int checked = 0;
  for (int round = 0; round < 30; ++round) {
    IncrementalParser parser(options);
    parser.reset(random_buffer(rng, 8));
    for (int e = 0; e < 50; ++e) {
      const ParseResult old = parser.result();
      int n = static_cast<int>(parser.lines().size());
      int first = static_cast<int>(rng() % (n + 1));
      int last = std::min(n, first + static_cast<int>(rng() % 3));
      // Only prose is replaced: deleting a fence or header line legitimately changes calls.
      for (int row = first; row < last; ++row) {
        const std::string& line = parser.lines()[row];
        if (!line.empty() && line != "some prose" && line != "just words") last = row;
      }
      std::vector<std::string> prose(rng() % 3, "just words");
      const int shift = static_cast<int>(prose.size()) - (last - first);
      auto touched = [&](const ToolCall& call) {
        int end = call.result ? call.result->end : call.end;
        return last + 2 > call.start && first < end + 2;  // inside or adjacent
      };
      parser.apply(first, last, prose);
      for (const auto& call : old.calls) {
        if (touched(call)) continue;
        // Editing an identical call above may renumber this one (SPEC 3): acceptable.
        bool twin_touched = false;
        for (const auto& other : old.calls) twin_touched |= touched(other) && twins(other, call);
        for (const auto& other : parser.result().calls) {
          // A deleted blank line can complete a block next to the edit.
          int end = other.result ? other.result->end : other.end;
          bool near = first + static_cast<int>(prose.size()) + 2 > other.start && first < end + 2;
          twin_touched |= near && twins(other, call);
        }
        if (twin_touched) continue;
        int expected = call.start >= last ? call.start + shift : call.start;
        bool found = false;
        for (const auto& now : parser.result().calls) {
          if (now.id == call.id) {
            found = true;
            EXPECT_EQ(now.start, expected) << call.id;
          }
        }
        EXPECT_TRUE(found) << call.id;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(ParseIncremental, MessageInsertedAboveKeepsIds) {
  auto lines = testing::lines_of(testing::read_file(testing::fixture_path("sidekick.chat.md")));
  IncrementalParser parser(testing::default_options());
  parser.reset(lines);
  auto before = parser.result().calls;
  ParseDelta delta = parser.apply(4, 4, {"USER: another", "ASSISTANT: I read `x`", "ok"});
  EXPECT_TRUE(delta.empty());
  ASSERT_EQ(parser.result().calls.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(parser.result().calls[i].id, before[i].id);
    EXPECT_EQ(parser.result().calls[i].start, before[i].start + 3);
  }
}

TEST(ParseIncremental, ReportsAddedChangedRemoved) {
  IncrementalParser parser(testing::default_options());
  parser.reset(testing::lines_of("ASSISTANT: go\n**Read:** `a`\n"));
  ASSERT_EQ(parser.result().calls.size(), 1u);
  std::string id = parser.result().calls[0].id;
  ParseDelta finished = parser.apply(
      2, 2, {"````result id=th-1 tool=read_file status=succeeded duration=0.01s", "````"});
  EXPECT_EQ(finished.changed, std::vector<std::string>{id});
  EXPECT_EQ(parser.result().calls[0].status, Status::Succeeded);
  ParseDelta added = parser.apply(4, 4, {"**ls:** `src`"});
  ASSERT_EQ(added.added.size(), 1u);
  ParseDelta removed = parser.apply(1, 4, {});
  EXPECT_EQ(removed.removed, std::vector<std::string>{id});
}

TEST(ParseIncremental, CompletingTheReplyTurnsIncompleteIntoError) {
  IncrementalParser parser(testing::default_options(false));
  parser.reset(testing::lines_of("USER: x\nASSISTANT: go\n**bash**\n```\nmake"));
  ASSERT_EQ(parser.result().calls.size(), 1u);
  EXPECT_EQ(parser.result().calls[0].status, Status::Incomplete);
  ParseDelta delta = parser.set_complete(true);
  EXPECT_EQ(delta.removed.size(), 1u);
  EXPECT_TRUE(parser.result().calls.empty());
  ASSERT_EQ(parser.result().errors.size(), 1u);
  EXPECT_EQ(parser.result().errors[0].message, "unclosed fence");
  EXPECT_EQ(parser.result().errors[0].line, 3);
}

TEST(ParseIncremental, WholeBufferEventResets) {
  IncrementalParser parser(testing::default_options());
  parser.apply(0, -1, testing::lines_of("ASSISTANT: go\n**Read:** `a`\n"));
  EXPECT_EQ(parser.result().calls.size(), 1u);
  parser.apply(50, 60, {"clamped"});  // rows past the end are clamped, never a crash
  EXPECT_EQ(parser.lines().back(), "clamped");
}

}  // namespace
}  // namespace toolhost::parse
