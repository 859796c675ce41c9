// The built-in file tools on real files in a temporary project root.
#include "tools/file_ops.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_jobs.h"

namespace toolhost::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FileOps : public ::testing::Test {
 protected:
  FileOps() {
    fs::create_directories(dir_ / "src/deep");
    fs::create_directories(dir_ / ".git/objects");
    write("src/a.c", "int a;\nint b;\nint c;\n");
    write("src/deep/d.txt", "d\n");
    write("README.md", "hello\n");
    fs::create_symlink("/", dir_ / "to_slash");
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  jobs::testing::TempDir dir_;
  std::string root() const { return dir_.path(); }
};

TEST_F(FileOps, ReadFileNumbersItsLines) {
  auto text = read_file(root(), {{"path", "src/a.c"}});
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(*text, "     1\tint a;\n     2\tint b;\n     3\tint c;\n");
}

TEST_F(FileOps, ReadFileRangeAsNumbersOrDigits) {
  auto numbers = read_file(root(), {{"path", "src/a.c"}, {"start_line", 2}, {"end_line", 3}});
  ASSERT_TRUE(numbers) << numbers.error();
  EXPECT_EQ(*numbers, "     2\tint b;\n     3\tint c;\n");
  auto digits = read_file(root(), {{"path", "src/a.c"}, {"start_line", "2"}, {"end_line", "2"}});
  ASSERT_TRUE(digits);
  EXPECT_EQ(*digits, "     2\tint b;\n");
  auto past_end = read_file(root(), {{"path", "src/a.c"}, {"start_line", 2}, {"end_line", 99}});
  ASSERT_TRUE(past_end);
  EXPECT_EQ(*past_end, "     2\tint b;\n     3\tint c;\n");
}

TEST_F(FileOps, ReadFileCrlfLinesShowWithoutTheCarriageReturn) {
  write("dos.txt", "one\r\ntwo\r\n");
  auto text = read_file(root(), {{"path", "dos.txt"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "     1\tone\n     2\ttwo\n");
}

TEST_F(FileOps, ReadFileErrorsSayWhat) {
  struct {
    json params;
    const char* error;
  } rows[] = {
      {{{"path", "nope.c"}}, "`nope.c` does not exist"},
      {{{"path", "src"}}, "`src` is a directory: list it with list_directory"},
      {{{"path", "../x"}}, "`../x` is outside the project root"},
      {{{"path", "to_slash/etc/passwd"}},
       "`to_slash/etc/passwd` leads out of the project root through a symlink"},
      {{{"path", "/etc/passwd"}}, "`/etc/passwd` is outside the project root"},
      {json::object(), "parameter `path` is missing"},
      {{{"path", 5}}, "parameter `path` must be a string, not a number"},
      {{{"path", "src/a.c"}, {"start_line", 3}, {"end_line", 2}}, "start_line is after end_line"},
      {{{"path", "src/a.c"}, {"start_line", 9}}, "`src/a.c` has 3 lines, start_line is 9"},
      {{{"path", "src/a.c"}, {"start_line", 0}},
       "parameter `start_line` must be a positive whole number"},
      {{{"path", "src/a.c"}, {"end_line", "x"}},
       "parameter `end_line` must be a positive whole number"},
  };
  for (const auto& row : rows) {
    auto text = read_file(root(), row.params);
    ASSERT_FALSE(text) << row.params;
    EXPECT_EQ(text.error(), row.error) << row.params;
  }
  write("bin", std::string("a\0b\n", 4));
  auto binary = read_file(root(), {{"path", "bin"}});
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error(), "`bin` looks binary (it holds NUL bytes)");
}

TEST_F(FileOps, ListDirectorySortedWithSlashes) {
  auto flat = list_directory(root(), json::object());
  ASSERT_TRUE(flat) << flat.error();
  EXPECT_EQ(*flat, ".git/\nREADME.md\nsrc/\nto_slash\n");
  auto tree = list_directory(root(), {{"path", "src"}, {"recursive", true}});
  ASSERT_TRUE(tree);
  EXPECT_EQ(*tree, "a.c\ndeep/\ndeep/d.txt\n");
  auto all = list_directory(root(), {{"recursive", "true"}});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->find(".git/objects"), std::string::npos) << *all;  // .git is not descended
}

TEST_F(FileOps, ListDirectoryCapsEntries) {
  auto capped = list_directory(root(), {{"max_entries", 2}});
  ASSERT_TRUE(capped);
  EXPECT_EQ(*capped, ".git/\nREADME.md\n… more entries not shown (max_entries = 2)\n");
  auto outside = list_directory(root(), {{"path", ".."}});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "`..` is outside the project root");
  auto file = list_directory(root(), {{"path", "README.md"}});
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error(), "`README.md` is not a directory");
}

TEST(ReplaceInText, AllPairsInOrder) {
  auto out = replace_in_text("a b c\n", json{"a", "c"}, json{"x", "z"});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "x b z\n");
}

TEST(ReplaceInText, AllOrNoneWithThePairNamed) {
  auto absent = replace_in_text("a b\n", json{"a", "q"}, json{"x", "y"});
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error(), "pair 2: the search text is not in the file");
  auto twice = replace_in_text("a a\n", json{"a"}, json{"x"});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error(), "pair 1: the search text occurs 2 times; it must occur once");
  auto empty = replace_in_text("a\n", json{""}, json{"x"});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error(), "pair 1: the search text is empty");
  auto uneven = replace_in_text("a\n", json{"a", "b"}, json{"x"});
  ASSERT_FALSE(uneven);
}

TEST(ReplaceInText, CrlfFileKeepsItsLineEnds) {
  auto out = replace_in_text("one\r\ntwo\r\nthree\r\n", json{"one\ntwo"}, json{"1\n2\n2b"});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "1\r\n2\r\n2b\r\nthree\r\n");
}

TEST(ReplaceInText, FinalNewlineOrItsAbsenceStays) {
  auto with = replace_in_text("x\n", json{"x"}, json{"y"});
  ASSERT_TRUE(with);
  EXPECT_EQ(*with, "y\n");
  auto without = replace_in_text("x", json{"x"}, json{"y"});
  ASSERT_TRUE(without);
  EXPECT_EQ(*without, "y");
}

TEST_F(FileOps, WriteFileCreatesParentsInsideAndKeepsTheMode) {
  auto made = write_file(root(), "new/dir/f.txt", "a\nb\n");
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(*made, "Wrote 2 lines to new/dir/f.txt");
  EXPECT_EQ(read("new/dir/f.txt"), "a\nb\n");

  ::chmod((dir_ / "src/a.c").c_str(), 0755);
  ASSERT_TRUE(write_file(root(), "src/a.c", "int z;"));
  struct stat st;
  ASSERT_EQ(::stat((dir_ / "src/a.c").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_EQ(read("src/a.c"), "int z;");
  // No temporary file is left next to it.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "src")) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST_F(FileOps, WriteFileThroughALinkInsideKeepsTheLink) {
  fs::create_symlink("src/a.c", dir_ / "link.c");
  ASSERT_TRUE(write_file(root(), "link.c", "linked\n"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.c"));
  EXPECT_EQ(read("src/a.c"), "linked\n");
}

TEST_F(FileOps, WriteFileOutsideIsRefusedAndWritesNothing) {
  for (const char* path : {"../escape.txt", "to_slash/tmp/escape.txt", "/tmp/escape.txt"}) {
    auto out = write_file(root(), path, "x");
    ASSERT_FALSE(out) << path;
    EXPECT_EQ(out.error(), "`" + std::string(path) + "` " +
                               (path[0] == 't' ? "leads out of the project root through a symlink"
                                               : "is outside the project root"));
  }
  EXPECT_FALSE(fs::exists(fs::path(root()).parent_path() / "escape.txt"));
}

TEST_F(FileOps, ReplaceInFileWritesOnlyWhenEveryPairApplies) {
  auto bad = replace_in_file(
      root(),
      {{"path", "src/a.c"}, {"search", {"int a;", "int q;"}}, {"replace", {"int x;", "int y;"}}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "`src/a.c`: pair 2: the search text is not in the file");
  EXPECT_EQ(read("src/a.c"), "int a;\nint b;\nint c;\n");
  auto good = replace_in_file(
      root(), {{"path", "src/a.c"}, {"search", {"int a;", "int c;"}}, {"replace", {"x", "z"}}});
  ASSERT_TRUE(good) << good.error();
  EXPECT_EQ(*good, "Replaced 2 block(s) in src/a.c");
  EXPECT_EQ(read("src/a.c"), "x\nint b;\nz\n");
}

}  // namespace
}  // namespace toolhost::tools
