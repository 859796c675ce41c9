// Path confinement (SPEC 7): escape attempts are refused, the same names inside the root pass.
#include "tools/confine.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_jobs.h"

namespace toolhost::tools {
namespace {

namespace fs = std::filesystem;

class Confine : public ::testing::Test {
 protected:
  Confine() {
    const fs::path base = dir_.path();
    fs::create_directories(base / "root" / "sub" / "deep");
    fs::create_directories(base / "outside");
    const fs::path root = base / "root";
    fs::create_symlink("/", root / "to_slash");
    fs::create_symlink("..", root / "to_parent");
    fs::create_symlink(base / "outside", root / "to_outside");
    fs::create_symlink("to_outside", root / "chain1");  // a chain that leaves
    fs::create_symlink("chain1", root / "chain2");
    fs::create_symlink("sub", root / "to_sub");  // a chain that stays
    fs::create_symlink("to_sub", root / "to_to_sub");
    fs::create_symlink(base / "outside" / "new", root / "dangling_out");
    fs::create_symlink("sub/deep", root / "to_deep");
    fs::create_symlink("../../outside", root / "sub" / "up_out");
    root_ = root.string();
  }
  jobs::testing::TempDir dir_;
  std::string root_;
};

TEST_F(Confine, EscapesAreRefused) {
  const std::string outside = dir_ / "outside";
  const std::vector<std::string> escapes = {
      "..",
      "../",
      "../x",
      "../root/../x",
      "a/../../b",
      "sub/../../x",
      "sub/deep/../../../x",
      "./../x",
      "sub/./../../x",
      "/",
      "/etc/passwd",
      "/etc",
      "/tmp/x",
      outside,
      outside + "/new.txt",
      root_ + "/../outside",
      root_ + "/sub/../../outside/x",
      root_ + "x",  // a sibling whose name starts like the root's
      "to_slash",
      "to_slash/etc/passwd",
      "to_parent",
      "to_parent/outside/x",
      "to_outside",
      "to_outside/new.txt",
      "chain1/x",
      "chain2",
      "chain2/deep/new",
      "dangling_out",  // its target does not exist yet: writing would create it outside
      "sub/up_out",
      "sub/up_out/x",
      std::string("sub\0/../../x", 12),  // a NUL the system calls would cut at
      std::string("a\0b", 3),
      "to_sub/../../x",
      "to_outside/../x",  // `..` climbs from the link's target: the root's parent
      "to_slash/../etc",
      "new/../to_outside/x",
      "~",  // the model means the home directory
      "~/x",
      "--opt=../x",  // a program would take it for an option
      "-rf",
      std::string(4000, 'a'),  // longer than a file's name
  };
  ASSERT_GE(escapes.size(), 30u);
  for (const auto& path : escapes) {
    EXPECT_FALSE(resolves_inside(root_, path)) << path;
  }
}

TEST_F(Confine, TheSameNamesInsideTheRootPass) {
  const std::vector<std::string> inside = {
      ".",
      "./",
      "x",
      "sub",
      "sub/",
      "sub/new/file.txt",  // need not exist yet
      "sub/../x",
      "sub/deep/../../x",
      "./sub/./deep",
      root_,
      root_ + "/sub/x",
      root_ + "/sub/../x",
      "to_sub/x",
      "to_to_sub/deep",
      "to_deep/new",
      "to_sub/../x",   // to_sub is root/sub: its parent is the root
      "to_deep/../x",  // root/sub/x
      "new/../sub/x",
      "..x",  // a name, not a parent
      "x..y/z",
      "a~",
      "x/~",
      "x/--opt",
      std::string(255, 'a'),  // the longest name a file may have
  };
  for (const auto& path : inside) {
    EXPECT_TRUE(resolves_inside(root_, path)) << path;
  }
}

TEST_F(Confine, EachRefusalNamesItsRule) {
  auto why = [&](const std::string& path) { return confinement_error(root_, path).value_or(""); };
  EXPECT_EQ(why("../x"), "`../x` is outside the project root");
  EXPECT_EQ(why("/etc/passwd"), "`/etc/passwd` is outside the project root");
  EXPECT_EQ(why("to_outside/x"), "`to_outside/x` leads out of the project root through a symlink");
  EXPECT_EQ(why("dangling_out"),
            "`dangling_out` goes through a symlink to a path that does not exist; writing "
            "through it could create a file outside the project root");
  EXPECT_EQ(why("~/x"), "`~/x` names the home directory, outside the project root");
  EXPECT_EQ(why("--opt=../x"),
            "`--opt=../x` starts with `-`, so a program would read it as an option");
  EXPECT_EQ(why(std::string("a\0b", 3)), "`a\\0b` holds a NUL byte");
  EXPECT_EQ(why(std::string(300, 'a')).substr(85), " has a name longer than a file's");
  std::string deep;
  while (deep.size() < 5000) deep += "a/";
  EXPECT_EQ(why(deep).substr(85), " is longer than a path may be");
  EXPECT_EQ(why("sub/x"), "");
}

TEST_F(Confine, RootMustExist) {
  EXPECT_FALSE(resolves_inside(root_ + "/missing-root", "x"));
}

}  // namespace
}  // namespace toolhost::tools
