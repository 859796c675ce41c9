// Whole transcripts, one per dialect and one with every malformed case: the complete JSON that
// `toolhost parse --json` prints is compared with a reviewed expectation next to the fixture.
#include <gtest/gtest.h>

#include "parse/print.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

using testing::fixture_path;
using testing::lines_of;

class ParseFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ParseFixture, MatchesExpectedJson) {
  const std::string name = GetParam();
  auto lines = lines_of(testing::read_file(fixture_path(name + ".chat.md")));
  ASSERT_FALSE(lines.empty());
  nlohmann::json actual = to_json(parse(lines, testing::default_options()));
  nlohmann::json expected =
      nlohmann::json::parse(testing::read_file(fixture_path(name + ".expected.json")));
  EXPECT_EQ(actual, expected) << "actual:\n" << actual.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Dialects, ParseFixture,
                         ::testing::Values("sidekick", "sidekick.executed", "codecompanion",
                                           "codecompanion.executed", "json", "malformed", "mixed"));

}  // namespace
}  // namespace toolhost::parse
