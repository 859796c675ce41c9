// Hostile chat text (SPEC 3, the reliability issue): huge buffers, very many blocks, a fence
// inside a fence. Each is calls or errors, never a crash or a hang.
#include <gtest/gtest.h>

#include "parse/parser.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::default_options;

TEST(ParseHostile, FiftyMegabytesOfTextParse) {
  std::vector<std::string> lines = {"USER: big", "ASSISTANT: big"};
  lines.resize(50002, std::string(1000, 'x'));
  ParseResult result = parse(lines, default_options());
  ASSERT_EQ(result.messages.size(), 2u);
  EXPECT_EQ(result.messages[1].end, 50002);
  EXPECT_TRUE(result.calls.empty());
}

TEST(ParseHostile, HundredThousandBlocksAreHundredThousandCalls) {
  std::vector<std::string> lines = {"USER: go", "ASSISTANT: many"};
  for (int i = 0; i < 100000; ++i) {
    lines.insert(lines.end(), {"**bash**", "```bash", "echo " + std::to_string(i), "```", ""});
  }
  ParseResult result = parse(lines, default_options());
  ASSERT_EQ(result.calls.size(), 100000u);
  EXPECT_EQ(result.calls.back().params["command"], "echo 99999");
  EXPECT_TRUE(result.errors.empty());
}

// A fence in a JSON string is text; a header after a closed fence starts a block of its own;
// a bare fence left open after it is prose, not a call.
TEST(ParseHostile, BlockInsideABlockIsTextOrItsOwnBlock) {
  auto result = testing::parse_text(
      "ASSISTANT: x\n```json\n{\"tool\": \"read_file\", \"parameters\": {\"path\": \"```json\"}}\n"
      "```\n**Read:** `x`\n```\n");
  ASSERT_EQ(result.calls.size(), 2u);
  EXPECT_EQ(result.calls[0].params["path"], "```json");
  EXPECT_EQ(result.calls[1].params["path"], "x");
  EXPECT_TRUE(result.errors.empty());
}

}  // namespace
}  // namespace toolhost::parse
