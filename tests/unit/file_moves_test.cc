// delete_file, move_file and copy_file on real files: confined, never through a link that
// leaves the root, never over an existing file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_jobs.h"
#include "tools/file_ops.h"

namespace toolhost::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FileMoves : public ::testing::Test {
 protected:
  FileMoves() {
    std::ofstream(dir_ / "a.txt") << "a\n";
    fs::create_directories(dir_ / "dir");
    fs::create_symlink("/etc/hostname", dir_ / "out_link");
    fs::create_symlink("a.txt", dir_ / "in_link");
  }
  std::string root() const { return dir_.path(); }
  jobs::testing::TempDir dir_;
};

TEST_F(FileMoves, DeleteRemovesAFileOrAnInsideLinkItself) {
  auto deleted = delete_file(root(), {{"path", "in_link"}});
  ASSERT_TRUE(deleted) << deleted.error();
  EXPECT_EQ(*deleted, "Deleted in_link");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "in_link")));
  EXPECT_TRUE(fs::exists(dir_ / "a.txt"));  // the link, not its target
  ASSERT_TRUE(delete_file(root(), {{"path", "a.txt"}}));
  EXPECT_FALSE(fs::exists(dir_ / "a.txt"));
}

TEST_F(FileMoves, DeleteErrorsSayWhat) {
  EXPECT_EQ(delete_file(root(), {{"path", "dir"}}).error(),
            "`dir` is a directory; delete_file removes files only");
  EXPECT_EQ(delete_file(root(), {{"path", "nope"}}).error(), "`nope` does not exist");
  EXPECT_EQ(delete_file(root(), {{"path", "out_link"}}).error(),
            "`out_link` leads out of the project root through a symlink");
  EXPECT_EQ(delete_file(root(), {{"path", "../x"}}).error(), "`../x` is outside the project root");
  EXPECT_EQ(delete_file(root(), json::object()).error(), "parameter `path` is missing");
}

TEST_F(FileMoves, MoveRenamesIntoNewDirectories) {
  auto moved = move_file(root(), {{"path", "a.txt"}, {"new_path", "x/y/b.txt"}});
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(*moved, "Moved a.txt to x/y/b.txt");
  EXPECT_FALSE(fs::exists(dir_ / "a.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "x/y/b.txt"));
}

TEST_F(FileMoves, MoveAndCopyNeverReplaceOrLeaveTheRoot) {
  std::ofstream(dir_ / "b.txt") << "b\n";
  EXPECT_EQ(move_file(root(), {{"path", "a.txt"}, {"new_path", "b.txt"}}).error(),
            "`b.txt` exists already; it is not replaced");
  EXPECT_EQ(copy_file(root(), {{"path", "a.txt"}, {"new_path", "/tmp/a.txt"}}).error(),
            "`/tmp/a.txt` is outside the project root");
  EXPECT_EQ(move_file(root(), {{"path", "out_link"}, {"new_path", "c"}}).error(),
            "`out_link` leads out of the project root through a symlink");
  EXPECT_EQ(move_file(root(), {{"path", "a.txt"}}).error(), "parameter `new_path` is missing");
  EXPECT_TRUE(fs::exists(dir_ / "a.txt"));
}

TEST_F(FileMoves, CopyKeepsTheModeAndCopiesFilesOnly) {
  ::chmod((dir_ / "a.txt").c_str(), 0751);
  auto copied = copy_file(root(), {{"path", "a.txt"}, {"new_path", "dir/c.txt"}});
  ASSERT_TRUE(copied) << copied.error();
  EXPECT_EQ(*copied, "Copied a.txt to dir/c.txt");
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "dir/c.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0751u);
  EXPECT_TRUE(fs::exists(dir_ / "a.txt"));
  EXPECT_EQ(copy_file(root(), {{"path", "dir"}, {"new_path", "dir2"}}).error(),
            "`dir` is not a file; copy_file copies files only");
}

}  // namespace
}  // namespace toolhost::tools
