// A call's list caps (issue #39): items and distinct files, then truncated for good.
#include <gtest/gtest.h>

#include "quickfix/item_caps.h"

namespace toolhost::quickfix {
namespace {

TEST(QuickfixCaps, ItemsPastTheCapAreRefusedAndTheListIsTruncated) {
  ItemCaps caps(3, 10);
  EXPECT_TRUE(caps.admit("/a.c"));
  EXPECT_TRUE(caps.admit("/a.c"));
  EXPECT_TRUE(caps.admit("/b.c"));
  EXPECT_FALSE(caps.truncated());
  EXPECT_FALSE(caps.admit("/a.c"));
  EXPECT_TRUE(caps.truncated());
  EXPECT_EQ(caps.items(), 3u);
  EXPECT_EQ(caps.files(), 2u);
}

TEST(QuickfixCaps, ANewFileOverTheFileCapTruncatesAKnownOneNeverComes) {
  ItemCaps caps(100, 2);
  EXPECT_TRUE(caps.admit("/a.c"));
  EXPECT_TRUE(caps.admit("/b.c"));
  EXPECT_TRUE(caps.admit("/a.c"));  // a known file still fits
  EXPECT_TRUE(caps.admit(""));      // an item without a file counts no file
  EXPECT_FALSE(caps.admit("/c.c"));
  EXPECT_TRUE(caps.truncated());
  EXPECT_FALSE(caps.admit("/a.c"));  // nothing after the cut
  EXPECT_EQ(caps.items(), 4u);
}

TEST(QuickfixCaps, TheLastItemNamesTheFullLog) {
  EXPECT_EQ(truncated_text("/c/jobs/th-3.log"), "truncated; full log: /c/jobs/th-3.log");
  EXPECT_EQ(truncated_text(""), "truncated; full log: (none kept)");
}

}  // namespace
}  // namespace toolhost::quickfix
