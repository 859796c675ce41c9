// llm-sidekick's peer forms as the file tools run them: a one-fence replacement whose split
// depends on the file (candidates), and `**Insert:**` (insert_into_file).
#include "tools/text_edits.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_jobs.h"
#include "tools/file_ops.h"

namespace toolhost::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// "a = 1\n\nb = 2\n\nc = 3" as the parser holds it: one candidate per run of blank lines.
const json kSearch = json::array({json::array({"a = 1", "a = 1\n\nb = 2"})});
const json kReplace = json::array({json::array({"b = 2\n\nc = 3", "c = 3"})});

TEST(ReplaceCandidates, TheSplitWhoseOldTextOccursOnceIsApplied) {
  auto first = replace_in_text("x\na = 1\ny\n", kSearch, kReplace);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(*first, "x\nb = 2\n\nc = 3\ny\n");
  // "a = 1" twice in the file: only the longer old text occurs once.
  auto second = replace_in_text("a = 1\n\nb = 2\na = 1\n", kSearch, kReplace);
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(*second, "c = 3\na = 1\n");
}

TEST(ReplaceCandidates, NoneFittingIsAnErrorNamingEachCandidate) {
  auto none = replace_in_text("q\n", kSearch, kReplace);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(),
            "pair 1: the fence has several runs of blank lines and no split fits: the old text "
            "ending at line 1 (`a = 1`) is not in the file and ending at line 3 (`b = 2`) is not "
            "in the file");
  auto twice = replace_in_text("a = 1\na = 1\n", kSearch, kReplace);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("ending at line 1 (`a = 1`) occurs 2 times"), std::string::npos)
      << twice.error();
}

TEST(ReplaceCandidates, SeveralFittingIsAnErrorNamingThem) {
  auto several = replace_in_text("a = 1\n\nb = 2\n", kSearch, kReplace);
  ASSERT_FALSE(several);
  EXPECT_EQ(several.error(),
            "pair 1: the fence splits 2 ways whose old text occurs once in the file, ending at "
            "line 1 (`a = 1`) and line 3 (`b = 2`): use `**Search:**` and `**Replace:**` fences");
  // Nothing is applied when a later pair fails either: all or none.
  auto later = replace_in_text("a = 1\n", json::array({"a = 1", kSearch[0]}),
                               json::array({"z", kReplace[0]}));
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().rfind("pair 2: ", 0), 0u) << later.error();
}

TEST(ReplaceCandidates, CrlfFileMatchesAndKeepsItsLineEnds) {
  auto out = replace_in_text("a = 1\r\nz\r\n", kSearch, kReplace);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "b = 2\r\n\r\nc = 3\r\nz\r\n");
}

TEST(InsertInText, AfterLineNAndAtTheTop) {
  EXPECT_EQ(*insert_in_text("a\nb\n", 1, "x\ny"), "a\nx\ny\nb\n");
  EXPECT_EQ(*insert_in_text("a\nb\n", 0, "x"), "x\na\nb\n");
  EXPECT_EQ(*insert_in_text("a\nb\n", 2, "x"), "a\nb\nx\n");
  EXPECT_EQ(*insert_in_text("", 0, "x"), "x\n");
  EXPECT_EQ(*insert_in_text("a\n", 1, ""), "a\n\n");  // an empty fence is one empty line
}

TEST(InsertInText, KeepsCrlfAndAMissingFinalNewline) {
  EXPECT_EQ(*insert_in_text("a\r\nb\r\n", 1, "x\ny"), "a\r\nx\r\ny\r\nb\r\n");
  EXPECT_EQ(*insert_in_text("a\nb", 2, "x"), "a\nb\nx");
  EXPECT_EQ(*insert_in_text("a\nb", 1, "x"), "a\nx\nb");
}

TEST(InsertInText, LinePastTheEndIsAnError) {
  auto past = insert_in_text("a\nb\n", 3, "x");
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error(), "the file has 2 lines: there is no line 3 to insert after");
}

class InsertIntoFile : public ::testing::Test {
 protected:
  InsertIntoFile() { std::ofstream(dir_ / "a.lua", std::ios::binary) << "one\ntwo\n"; }
  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  jobs::testing::TempDir dir_;
  std::string root() const { return dir_.path(); }
};

TEST_F(InsertIntoFile, WritesTheFileAndSaysWhere) {
  auto done = insert_into_file(root(), {{"path", "a.lua"}, {"line", 1}, {"content", "x\ny"}});
  ASSERT_TRUE(done) << done.error();
  EXPECT_EQ(*done, "Inserted 2 line(s) into a.lua after line 1");
  EXPECT_EQ(read("a.lua"), "one\nx\ny\ntwo\n");
  auto top = insert_into_file(root(), {{"path", "a.lua"}, {"line", "0"}, {"content", "--"}});
  ASSERT_TRUE(top) << top.error();
  EXPECT_EQ(*top, "Inserted 1 line(s) into a.lua at the top");
  EXPECT_EQ(read("a.lua"), "--\none\nx\ny\ntwo\n");
}

TEST_F(InsertIntoFile, RefusalsChangeNothing) {
  auto past = insert_into_file(root(), {{"path", "a.lua"}, {"line", 9}, {"content", "x"}});
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error(), "`a.lua`: the file has 2 lines: there is no line 9 to insert after");
  auto missing = insert_into_file(root(), {{"path", "b.lua"}, {"line", 0}, {"content", "x"}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "`b.lua` does not exist");
  auto outside = insert_into_file(root(), {{"path", "../a.lua"}, {"line", 0}, {"content", "x"}});
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().find("outside the project root"), std::string::npos);
  auto negative = insert_into_file(root(), {{"path", "a.lua"}, {"line", -1}, {"content", "x"}});
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error(), "parameter `line` must be a whole number (0 or more)");
  EXPECT_EQ(read("a.lua"), "one\ntwo\n");
  EXPECT_FALSE(fs::exists(dir_.path() + "/b.lua"));
}

}  // namespace
}  // namespace toolhost::tools
