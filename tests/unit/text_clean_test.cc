// SPEC 5: ANSI escapes stripped; a `\r` keeps only what follows the last one; TAB stays;
// other control characters in caret form; invalid UTF-8 bytes as <xx>; lines cut at 500
// code points with `…`.
#include "results/text_clean.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace toolhost::results {
namespace {

using Lines = std::vector<std::string>;

TEST(TextClean, PlainTextAndUtf8PassThrough) {
  EXPECT_EQ(clean_line("make: Nothing to be done."), "make: Nothing to be done.");
  EXPECT_EQ(clean_line("héllo ✓ 日本 🎉"), "héllo ✓ 日本 🎉");
  EXPECT_EQ(clean_line(""), "");
}

TEST(TextClean, SgrColoursAreStripped) {
  EXPECT_EQ(clean_line("\x1b[1;31merror\x1b[0m: bad"), "error: bad");
  EXPECT_EQ(clean_line("\x1b[38;5;196mred\x1b[m"), "red");
  EXPECT_EQ(clean_line("\x1b[38:2:255:0:0mtruecolor\x1b[39m"), "truecolor");
}

TEST(TextClean, CursorAndEraseSequencesAreStripped) {
  EXPECT_EQ(clean_line("\x1b[2K\x1b[1Gdone"), "done");
  EXPECT_EQ(clean_line("\x1b[?25lhidden cursor\x1b[?25h"), "hidden cursor");
}

TEST(TextClean, OscTitleAndHyperlinksAreStripped) {
  EXPECT_EQ(clean_line("\x1b]0;title\x07text"), "text");
  EXPECT_EQ(clean_line("\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ after"), "link after");
}

TEST(TextClean, CharsetAndKeypadEscapesAreStripped) {
  // `tput sgr0` writes ESC ( B ESC [ m: the "B" is part of the escape, not text.
  EXPECT_EQ(clean_line("\x1b(Bplain\x1b[m"), "plain");
  EXPECT_EQ(clean_line("\x1b=keypad\x1b>"), "keypad");
  EXPECT_EQ(clean_line("\x1b)0x"), "x");
}

TEST(TextClean, DcsAndApcStringsAreStripped) {
  EXPECT_EQ(clean_line("a\x1bPq#0;2;0;0;0\x1b\\b"), "ab");
  EXPECT_EQ(clean_line("a\x1b_Gf=100;AAAA\x1b\\b"), "ab");
}

TEST(TextClean, UnterminatedEscapesDropTheRestNotTheStart) {
  EXPECT_EQ(clean_line("kept\x1b[1;3"), "kept");
  EXPECT_EQ(clean_line("kept\x1b"), "kept");
  EXPECT_EQ(clean_line("kept\x1b]0;never ends"), "kept");
}

TEST(TextClean, CarriageReturnKeepsWhatFollowsTheLastOne) {
  EXPECT_EQ(clean_line("abc\rdef"), "def");
  EXPECT_EQ(clean_line(" 10%\r 50%\r100% done"), "100% done");
  EXPECT_EQ(clean_line("\x1b[32m 10%\x1b[0m\r\x1b[32m100%\x1b[0m"), "100%");
}

TEST(TextClean, TrailingCarriageReturnsOverwriteNothing) {
  EXPECT_EQ(clean_line("crlf line\r"), "crlf line");
  EXPECT_EQ(clean_line("abc\r\r"), "abc");
  EXPECT_EQ(clean_line(" 50%\r100%\r\r"), "100%");
  EXPECT_EQ(clean_line("\r"), "");
  EXPECT_EQ(clean_line("\r\r\r"), "");
}

TEST(TextClean, TabStaysOtherC0ControlsInCaretForm) {
  EXPECT_EQ(clean_line("a\tb"), "a\tb");
  EXPECT_EQ(clean_line(std::string("nul\0here", 8)), "nul^@here");
  EXPECT_EQ(clean_line("bell\x07 bs\x08 ff\x0c"), "bell^G bs^H ff^L");
  EXPECT_EQ(clean_line("\x1f\x7f"), "^_^?");
}

TEST(TextClean, C1ControlsAreShownNotWrittenRaw) {
  EXPECT_EQ(clean_line("next\xc2\x85line"), "next<85>line");  // U+0085 NEL
  EXPECT_EQ(clean_line("\xc2\x80\xc2\x9f"), "<80><9f>");
  // The first printable code point after them is kept as is.
  EXPECT_EQ(clean_line("\xc2\xa0nbsp"), "\xc2\xa0nbsp");
}

TEST(TextClean, EightBitCsiAndOscAreEscapesAndStripped) {
  EXPECT_EQ(clean_line("\xc2\x9b"
                       "31mred\xc2\x9b"
                       "0m"),
            "red");
  EXPECT_EQ(clean_line("\xc2\x9d"
                       "0;title\x07text"),
            "text");
}

TEST(TextClean, InvalidUtf8BytesAsHex) {
  EXPECT_EQ(clean_line("a\xff"
                       "b"),
            "a<ff>b");
  EXPECT_EQ(clean_line("\xc3"), "<c3>");                          // truncated 2-byte sequence
  EXPECT_EQ(clean_line("\xc0\xaf"), "<c0><af>");                  // overlong '/'
  EXPECT_EQ(clean_line("\xed\xa0\x80"), "<ed><a0><80>");          // UTF-16 surrogate
  EXPECT_EQ(clean_line("\xf4\x90\x80\x80"), "<f4><90><80><80>");  // above U+10FFFF
  EXPECT_EQ(clean_line("\x80"), "<80>");                          // lone continuation byte
  EXPECT_EQ(clean_line("\xe2\x9c"), "<e2><9c>");                  // truncated ✓
}

std::string repeat(const std::string& piece, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

TEST(TextClean, LineOf500CodePointsIsNotCut) {
  EXPECT_EQ(clean_line(repeat("x", 500)), repeat("x", 500));
  EXPECT_EQ(clean_line(repeat("é", 500)), repeat("é", 500));
  // Escapes after the 500th character show nothing: nothing is cut.
  EXPECT_EQ(clean_line(repeat("x", 500) + "\x1b[0m"), repeat("x", 500));
}

TEST(TextClean, LongerLinesAreCutAt500CodePointsWithAnEllipsis) {
  EXPECT_EQ(clean_line(repeat("x", 501)), repeat("x", 500) + "…");
  EXPECT_EQ(clean_line(repeat("✓", 10000)), repeat("✓", 500) + "…");
  EXPECT_EQ(clean_line("\x1b[31m" + repeat("y", 600) + "\x1b[0m"), repeat("y", 500) + "…");
}

TEST(TextClean, CutCountsTheCleanedTextAndNeverSplitsAnEscapeForm) {
  // 499 characters, then a control: "^@" would make 501, so it is cut before it.
  EXPECT_EQ(clean_line(repeat("x", 499) + std::string(1, '\0') + "z"), repeat("x", 499) + "…");
  EXPECT_EQ(clean_line(repeat("x", 498) + std::string(1, '\0')), repeat("x", 498) + "^@");
  EXPECT_EQ(clean_line(repeat("x", 497) + "\xff"), repeat("x", 497) + "…");
  EXPECT_EQ(clean_line(repeat(std::string(1, '\0'), 300)), repeat("^@", 250) + "…");
}

TEST(TextClean, LinesSplitOnNewlineFinalNewlineStartsNoLine) {
  EXPECT_EQ(clean_lines(""), Lines{});
  EXPECT_EQ(clean_lines("\n"), Lines{""});
  EXPECT_EQ(clean_lines("a\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(clean_lines("a\nb\n"), (Lines{"a", "b"}));
  EXPECT_EQ(clean_lines("a\n\nb\n\n"), (Lines{"a", "", "b", ""}));
  EXPECT_EQ(clean_lines("dos\r\nlines\r\n"), (Lines{"dos", "lines"}));
  EXPECT_EQ(clean_lines("1%\r2%\r3%\nnext\x1b[0m\n"), (Lines{"3%", "next"}));
}

// Decodes UTF-8 that is known to be valid; -1 if it is not.
int count_code_points(const std::string& text) {
  int n = 0;
  for (size_t i = 0; i < text.size(); ++n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > text.size()) return -1;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return -1;
    }
    i += len;
  }
  return n;
}

TEST(TextClean, AnyInputGivesValidUtf8WithoutControlsAndBoundedLength) {
  std::mt19937 random(42);
  const std::string alphabet[] = {
      "a",    "\x1b",         "[",    "]",    "\r", "\t", "\x07", "\xc2", "\x9b",
      "\x85", "\xe2\x9c\x93", "\xff", "\x80", "m",  "\\", "(",    "B"};
  for (int round = 0; round < 2000; ++round) {
    std::string raw;
    for (int n = random() % 1200; n > 0; --n) raw += alphabet[random() % std::size(alphabet)];
    std::string line = clean_line(raw);
    int code_points = count_code_points(line);
    ASSERT_GE(code_points, 0) << "invalid UTF-8 from input #" << round;
    ASSERT_LE(code_points, 501);
    for (unsigned char c : line) {
      ASSERT_TRUE(c >= 0x20 || c == '\t') << "control byte " << int(c) << " in #" << round;
      ASSERT_NE(c, 0x7f);
    }
    ASSERT_EQ(line.find("\xc2\x85"), std::string::npos);  // no raw C1 control
    ASSERT_EQ(line.find("\xc2\x9b"), std::string::npos);
  }
}

}  // namespace
}  // namespace toolhost::results
