// A `**Tool:**` block finished (SPEC 13.3, 10.1): its header becomes ``✓ Called: `name` `` or a
// failure label, its JSON fence stays, and the buffer read back lists the same call, finished,
// under the same id. Incremental parses of the MCP forms equal full parses.
#include <gtest/gtest.h>

#include <random>

#include "parse/incremental.h"
#include "parse/print.h"
#include "parse_test_util.h"
#include "results/executed_form.h"

namespace toolhost::parse {
namespace {

using Lines = std::vector<std::string>;
using nlohmann::json;

Lines with_header(const Lines& block) {
  Lines lines{"ASSISTANT: x"};
  lines.insert(lines.end(), block.begin(), block.end());
  return lines;
}

Lines result_lines(const std::string& tool, Status status) {
  return {"````result id=th-9 tool=" + tool + " status=" + std::string(to_string(status)) +
              " duration=0.01s",
          "output", "````"};
}

struct FinishedBlock {
  ToolCall before;
  Lines rewritten;
  ParseResult after;
};

FinishedBlock finish_block(const Lines& block, Status status) {
  const Options options = testing::mcp_options();
  FinishedBlock out;
  ParseResult first = parse(with_header(block), options);
  EXPECT_EQ(first.calls.size(), 1u);
  if (first.calls.empty()) return out;
  out.before = first.calls[0];
  out.rewritten = results::executed_form(out.before, block, status);
  Lines buffer = with_header(out.rewritten);
  for (auto& line : result_lines(out.before.tool, status)) buffer.push_back(line);
  out.after = parse(buffer, options);
  return out;
}

const Lines kEcho = {"**Tool:** `everything__echo`", "```json", "{\"message\": \"hi\"}", "```",
                     "> say hi"};

TEST(ParseMcpExecuted, EveryStatusRewritesTheHeaderAndReadsBackAsTheSameCall) {
  const std::pair<Status, const char*> labels[] = {
      {Status::Succeeded, "✓ Called:"},   {Status::Failed, "✗ Failed:"},
      {Status::TimedOut, "✗ Timed out:"}, {Status::Canceled, "✗ Canceled:"},
      {Status::Rejected, "✗ Rejected:"},  {Status::Interrupted, "✗ Interrupted:"},
  };
  for (const auto& [status, label] : labels) {
    FinishedBlock f = finish_block(kEcho, status);
    Lines expected = kEcho;
    expected[0] = std::string(label) + " `everything__echo`";
    EXPECT_EQ(f.rewritten, expected) << label;
    ASSERT_EQ(f.after.calls.size(), 1u) << label;
    ASSERT_TRUE(f.after.errors.empty()) << f.after.errors[0].message;
    const ToolCall& call = f.after.calls[0];
    EXPECT_TRUE(call.executed_form) << label;
    EXPECT_EQ(call.status, status) << label;
    EXPECT_EQ(call.tool, "everything__echo");
    EXPECT_EQ(call.params, (json{{"message", "hi"}})) << label;
    EXPECT_EQ(call.id, f.before.id) << label;  // history matches it by id
  }
}

TEST(ParseMcpExecuted, TheHeaderNamesTheToolAsTheTableDoes) {
  FinishedBlock f =
      finish_block({"**Tool:** `my docs__search.v2`", "```json", "{\"query\": \"q\"}", "```"},
                   Status::Succeeded);
  ASSERT_FALSE(f.rewritten.empty());
  EXPECT_EQ(f.rewritten[0], "✓ Called: `my_docs__search.v2`");
  ASSERT_EQ(f.after.calls.size(), 1u);
  EXPECT_EQ(f.after.calls[0].params, (json{{"query", "q"}}));
  EXPECT_EQ(f.after.calls[0].id, f.before.id);
}

TEST(ParseMcpExecuted, ABuiltinNamedInAToolHeaderReadsBackFromItsFence) {
  for (Status status : {Status::Succeeded, Status::Failed}) {
    FinishedBlock f =
        finish_block({"**Tool:** `read_file`", "```json", "{\"path\": \"a.c\"}", "```"}, status);
    ASSERT_EQ(f.after.calls.size(), 1u);
    EXPECT_EQ(f.after.calls[0].tool, "read_file");
    EXPECT_EQ(f.after.calls[0].params, (json{{"path", "a.c"}}));
    EXPECT_EQ(f.after.calls[0].id, f.before.id);
  }
}

TEST(ParseMcpExecuted, ARunAgainTakesTheLabelOfItsNewStatus) {
  FinishedBlock f = finish_block(kEcho, Status::Failed);
  ASSERT_EQ(f.after.calls.size(), 1u);
  Lines again = results::rerun_form(f.after.calls[0], f.rewritten, Status::Succeeded);
  EXPECT_EQ(again[0], "✓ Called: `everything__echo`");
  FinishedBlock ok = finish_block(kEcho, Status::Succeeded);
  ASSERT_EQ(ok.after.calls.size(), 1u);
  EXPECT_EQ(results::rerun_form(ok.after.calls[0], ok.rewritten, Status::TimedOut)[0],
            "✗ Timed out: `everything__echo`");
}

TEST(ParseMcpExecuted, AFinishedCallOfAToolNoLongerInTheTableIsStillListed) {
  Lines buffer = with_header({"✓ Called: `gone__tool`", "```json", "{\"x\": 1}", "```"});
  for (auto& line : result_lines("gone__tool", Status::Succeeded)) buffer.push_back(line);
  ParseResult r = parse(buffer, testing::mcp_options());
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].tool, "gone__tool");
  EXPECT_EQ(r.calls[0].params, (json{{"x", 1}}));
  EXPECT_EQ(r.calls[0].status, Status::Succeeded);
}

TEST(ParseMcpExecuted, AFailedTerminalCommandNamedLikeItsToolIsNoToolForm) {
  // `✗ Failed: `bash`` is a terminal command `bash` (the alias), not a `**Tool:**` block.
  Lines buffer = with_header({"✗ Failed: `bash`"});
  for (auto& line : result_lines("run_terminal_command", Status::Failed)) buffer.push_back(line);
  ParseResult r = parse(buffer, testing::mcp_options());
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].params, (json{{"command", "bash"}}));
}

// Random edits over buffers of the MCP forms: the incremental parse equals the full parse.
TEST(ParseMcpExecuted, RandomEditsOfMcpBlocksMatchFullParse) {
  const std::vector<Lines> blocks = {
      kEcho,
      {"✓ Called: `everything__add`", "```json", "{\"a\": 1, \"b\": 2}", "```",
       "````result id=th-1 tool=everything__add status=succeeded duration=0.01s", "3", "````"},
      {"```xml", "<tools><tool name=\"mcp\"><action type=\"use_mcp_tool\">",
       "<server_name>everything</server_name><tool_name>echo</tool_name>",
       "<tool_input>{\"message\": \"x\"}</tool_input></action></tool></tools>", "```"},
      {"```json", "{\"tool\": \"everything__echo\", \"arguments\": {\"message\": \"y\"}}", "```"},
      {"**Tool:** `everything__nope`", "```json", "{}", "```"},
      {"some prose", ""},
  };
  const Lines vocabulary = {"",
                            "```",
                            "```json",
                            "{}",
                            "**Tool:** `everything__echo`",
                            "**Tool:** `my docs__search.v2`",
                            "✓ Called: `everything__echo`",
                            "✗ Failed: `everything__echo`",
                            "````result id=th-2 tool=everything__echo status=failed duration=0s",
                            "````",
                            "<server_name>my docs</server_name>",
                            "> why",
                            "USER: hi",
                            "ASSISTANT: ok"};
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    const Options options = testing::mcp_options(seed % 2 == 0);
    Lines lines = {"USER: go"};
    for (int m = 0; m < 3; ++m) {
      lines.push_back("ASSISTANT: ok");
      for (int b = 0; b < 4; ++b) {
        const Lines& block = blocks[rng() % blocks.size()];
        lines.insert(lines.end(), block.begin(), block.end());
      }
    }
    IncrementalParser parser(options);
    parser.reset(lines);
    for (int e = 0; e < 60; ++e) {
      const int n = static_cast<int>(lines.size());
      const int first = static_cast<int>(rng() % static_cast<uint32_t>(n + 1));
      const int last = std::min(n, first + static_cast<int>(rng() % 3));
      Lines replacement;
      for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
        replacement.push_back(vocabulary[rng() % vocabulary.size()]);
      }
      lines.erase(lines.begin() + first, lines.begin() + last);
      lines.insert(lines.begin() + first, replacement.begin(), replacement.end());
      parser.apply(first, last, replacement);
      ASSERT_EQ(to_json(parser.result()), to_json(parse(lines, options)))
          << "seed " << seed << " edit " << e;
    }
  }
}

}  // namespace
}  // namespace toolhost::parse
