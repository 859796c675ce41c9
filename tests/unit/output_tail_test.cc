// results::OutputTail: the streamed last lines of a running job (SPEC 5).
#include "results/output_tail.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace toolhost::results {
namespace {

using Lines = std::vector<std::string>;
using jobs::Stream;

TEST(OutputTail, KeepsTheLastLinesAcrossReads) {
  OutputTail tail(3);
  tail.append(Stream::Stdout, "one\ntw");
  tail.append(Stream::Stdout, "o\nthree\nfour\nfi");
  EXPECT_EQ(tail.lines(), (Lines{"three", "four", "fi"}));
  tail.append(Stream::Stdout, "ve\n");
  EXPECT_EQ(tail.lines(), (Lines{"three", "four", "five"}));
}

TEST(OutputTail, AFloodKeepsOnlyWhatShows) {
  OutputTail tail(2);
  std::string flood;
  for (int i = 0; i < 10000; ++i) flood += "line " + std::to_string(i) + "\n";
  tail.append(Stream::Stdout, "partial that scrolls away ");
  tail.append(Stream::Stdout, flood + "tail");
  EXPECT_EQ(tail.lines(), (Lines{"line 9999", "tail"}));
}

TEST(OutputTail, PartialLinesOfTheTwoStreamsNeverMix) {
  OutputTail tail(5);
  tail.append(Stream::Stdout, "progress 1");
  tail.append(Stream::Stderr, "warn");
  tail.append(Stream::Stdout, "0%");
  EXPECT_EQ(tail.lines(), (Lines{"progress 10%", "warn"}));
  tail.append(Stream::Stderr, "ing\n");
  EXPECT_EQ(tail.lines(), (Lines{"warning", "progress 10%"}));
}

TEST(OutputTail, CarriageReturnOverwritesTheLineAsATerminalDoes) {
  OutputTail tail(5);
  tail.append(Stream::Stdout, "10%\r");
  tail.append(Stream::Stdout, "20%\r");
  EXPECT_EQ(tail.lines(), Lines{"20%"});
  tail.append(Stream::Stdout, "30%\r40%");
  EXPECT_EQ(tail.lines(), Lines{"40%"});
  tail.append(Stream::Stdout, "\r\n");  // CRLF ends the line, it overwrites nothing
  tail.append(Stream::Stdout, "done\r\n");
  EXPECT_EQ(tail.lines(), (Lines{"40%", "done"}));
}

TEST(OutputTail, ALongLineIsCutOnACharacterBoundary) {
  OutputTail tail(2);
  // Invisible escapes fill the budget so the cut shows; 'é' is two bytes and the budget
  // ends in the middle of one.
  std::string line;
  while (line.size() + 4 <= OutputTail::kLineBytes - 16) line += "\x1b[0m";
  line += "x";
  if (line.size() % 2 == 0) line += "y";  // é's lead byte lands on the last byte kept
  while (line.size() < OutputTail::kLineBytes + 10) line += "é";
  tail.append(Stream::Stdout, line);
  Lines shown = tail.lines();
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].find('<'), std::string::npos) << "a split character shows as <xx>";
  EXPECT_EQ(shown[0].substr(shown[0].size() - 3), "…");
}

TEST(OutputTail, AnOverwriteStartsAFreshBudget) {
  OutputTail tail(1);
  tail.append(Stream::Stdout, std::string(OutputTail::kLineBytes * 3, 'z'));
  tail.append(Stream::Stdout, "\rshort");
  EXPECT_EQ(tail.lines(), Lines{"short"});
}

// A streamed line shows what fits the screen (output.stream_width): the rest is never seen, and
// would cost Neovim time at each update. Never wider than a result block's lines.
TEST(OutputTail, LinesAreCutAtTheStreamWidth) {
  OutputTail narrow(2, 10);
  narrow.append(Stream::Stdout, "0123456789abcdef\nééééééééééééé\n");
  EXPECT_EQ(narrow.lines(), (Lines{"0123456789…", "éééééééééé…"}));
  OutputTail wide(1, 100000);
  wide.append(Stream::Stdout, std::string(1000, 'w') + "\n");
  EXPECT_EQ(wide.lines().at(0), std::string(500, 'w') + "…");
}

}  // namespace
}  // namespace toolhost::results
