// Transcripts in the shapes llm-sidekick (February, March and July 2025, and its own prompt's
// example), CodeCompanion (April 2025) and the model APIs write, read the way
// `toolhost parse --json` reads a file: each must give its reviewed expectation, also when
// saved with CRLF line ends or with trailing blanks on every line outside a fence.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>

#include "cli/transcript.h"
#include "parse/print.h"
#include "parse/text.h"
#include "parse_test_util.h"

namespace toolhost::parse {
namespace {

std::string peer_path(const std::string& name) {
  return std::string(TOOLHOST_FIXTURES) + "/peers/" + name;
}

// The lines of `text` as `toolhost parse` reads a file holding it.
std::vector<std::string> read_as_file(const std::string& text) {
  char path[] = "/tmp/toolhost-peer-XXXXXX";
  int fd = ::mkstemp(path);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << text;
  auto lines = cli::read_lines(path);
  std::remove(path);
  EXPECT_TRUE(lines) << lines.error();
  return lines ? *lines : std::vector<std::string>{};
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out.push_back('\r');
    out.push_back(c);
  }
  return out;
}

// Two spaces after every line that is not fence content (fence lines themselves included).
std::string with_trailing_blanks(const std::string& text) {
  std::string out;
  std::optional<FenceOpen> open;
  for (const auto& line : testing::lines_of(text)) {
    bool content = open.has_value();
    if (open && closes_fence(line, *open)) {
      open.reset();
      content = false;
    } else if (!open) {
      open = fence_open(line);
    }
    out += line;
    if (!content) out += "  ";
    out += "\n";
  }
  return out;
}

class PeerFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void expect_parse(const std::string& text, const char* variant) {
    nlohmann::json actual = to_json(parse(read_as_file(text), testing::default_options()));
    nlohmann::json expected = nlohmann::json::parse(
        testing::read_file(peer_path(GetParam() + ".expected.json")));
    EXPECT_EQ(actual, expected) << variant << ", actual:\n" << actual.dump(2);
  }
  std::string text() const { return testing::read_file(peer_path(GetParam() + ".chat.md")); }
};

TEST_P(PeerFixture, MatchesExpectedJson) {
  ASSERT_FALSE(text().empty());
  expect_parse(text(), "as written");
}

TEST_P(PeerFixture, CrlfLineEndsParseTheSame) {
  expect_parse(with_crlf(text()), "CRLF");
}

TEST_P(PeerFixture, TrailingBlanksOutsideFencesParseTheSame) {
  expect_parse(with_trailing_blanks(text()), "trailing blanks");
}

INSTANTIATE_TEST_SUITE_P(Peers, PeerFixture,
                         ::testing::Values("sidekick-2025-02", "sidekick-2025-03",
                                           "sidekick-2025-07", "sidekick-prompt",
                                           "codecompanion-2025-04", "api-json"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace toolhost::parse
