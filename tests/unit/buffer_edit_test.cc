// The pieces of a loaded-buffer edit that need no Neovim: the smallest changed run of lines
// (so marks and the cursor elsewhere stay put), and a file's text as buffer lines.
#include "tools/buffer_edit.h"

#include <gtest/gtest.h>

namespace toolhost::tools {
namespace {

using Lines = std::vector<std::string>;

TEST(BufferEdit, ChangedLinesIsTheSmallestRun) {
  LineChange change = changed_lines({"a", "b", "c", "d"}, {"a", "B", "C", "d"});
  EXPECT_EQ(change.first, 1);
  EXPECT_EQ(change.last, 3);
  EXPECT_EQ(change.lines, (Lines{"B", "C"}));
}

TEST(BufferEdit, ChangedLinesForInsertDeleteAndNoChange) {
  LineChange insert = changed_lines({"a", "c"}, {"a", "b", "c"});
  EXPECT_EQ(insert.first, 1);
  EXPECT_EQ(insert.last, 1);
  EXPECT_EQ(insert.lines, Lines{"b"});
  LineChange remove = changed_lines({"a", "b", "b"}, {"a", "b"});
  EXPECT_EQ(remove.first, 2);
  EXPECT_EQ(remove.last, 3);
  EXPECT_TRUE(remove.lines.empty());
  LineChange same = changed_lines({"x"}, {"x"});
  EXPECT_EQ(same.first, same.last);
  LineChange all = changed_lines({}, {"new"});
  EXPECT_EQ(all.first, 0);
  EXPECT_EQ(all.last, 0);
  EXPECT_EQ(all.lines, Lines{"new"});
}

TEST(BufferEdit, TextLinesDropsCarriageReturnsAndTheFinalNewline) {
  EXPECT_EQ(text_lines("a\r\nb\r\n"), (Lines{"a", "b"}));
  EXPECT_EQ(text_lines("a\n\nb"), (Lines{"a", "", "b"}));
  EXPECT_TRUE(text_lines("").empty());
}

}  // namespace
}  // namespace toolhost::tools
