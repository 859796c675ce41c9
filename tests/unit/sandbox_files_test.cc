// The sandbox's filesystem: writes only in the root and the temp dirs, the protected names in
// the root read-only, the home's secret stores unreadable. Real kernel, real programs; each
// denial is checked against the same command run without the sandbox.

#include "sandbox_test_util.h"

namespace toolhost::sandbox::testing {
namespace {

class SandboxFiles : public SandboxFixture {};

TEST_F(SandboxFiles, WriteOutsideTheRootIsDenied) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::string script = "echo x > '" + outside_ + "/f'";
  Outcome denied = sh_in(*sandbox, script);
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("Permission denied"), std::string::npos) << denied.output;
  EXPECT_FALSE(exists(outside_ + "/f"));
  ASSERT_TRUE(sh_plain(script).ok());
  EXPECT_TRUE(exists(outside_ + "/f"));
}

TEST_F(SandboxFiles, TruncatingAFileOutsideTheRootIsDenied) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  write(outside_ + "/kept", "content\n");
  Outcome denied = sh_in(*sandbox, ": > '" + outside_ + "/kept'");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_EQ(read(outside_ + "/kept"), "content\n");
}

TEST_F(SandboxFiles, FilesInTheRootTheTempDirsAndDevNullAreWritable) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome run = sh_in(*sandbox,
                      "set -e; echo a > f; mkdir -p d/e; echo b > d/e/g; mv d/e/g h; rm f; "
                      "t=$(mktemp /tmp/toolhost-sandbox-test.XXXXXX); echo c > $t; rm $t; "
                      "echo d > \"$TMPDIR/t\"; echo e > /dev/null; echo f > /dev/stderr");
  EXPECT_TRUE(run.ok()) << run.output;
  EXPECT_EQ(read(root_ + "/h"), "b\n");
  EXPECT_EQ(read(tmpdir_ + "/t"), "d\n");
}

TEST_F(SandboxFiles, ExtraWritableRootsAreWritable) {
  Settings with_outside = settings();
  with_outside.writable = {outside_};
  auto sandbox = make(with_outside);
  ASSERT_TRUE(sandbox);
  EXPECT_TRUE(sh_in(*sandbox, "echo x > '" + outside_ + "/f'").ok());
  EXPECT_NE(sandbox->describe().find(outside_), std::string::npos);
}

TEST_F(SandboxFiles, ASecretStoreIsUnreadableAndTheRestOfTheHomeIsReadable) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::string key = home_ + "/.ssh/id_ed25519";
  Outcome secret = sh_in(*sandbox, "cat '" + key + "'");
  EXPECT_NE(secret.exit_code, 0);
  EXPECT_EQ(secret.output.find("PRIVATE KEY"), std::string::npos) << secret.output;
  EXPECT_NE(secret.output.find("Permission denied"), std::string::npos) << secret.output;
  EXPECT_NE(sh_plain("cat '" + key + "'").output.find("PRIVATE KEY"), std::string::npos);

  Outcome sibling = sh_in(*sandbox, "cat '" + home_ + "/notes.txt'; ls '" + home_ + "'");
  EXPECT_TRUE(sibling.ok()) << sibling.output;
  EXPECT_NE(sibling.output.find("not a secret"), std::string::npos);
  EXPECT_TRUE(sh_in(*sandbox, "cat /etc/passwd > /dev/null && ls / > /dev/null").ok());
}

TEST_F(SandboxFiles, ASecretReachedThroughASymlinkIsUnreadable) {
  std::filesystem::create_directories(outside_ + "/store");
  write(outside_ + "/store/token", "TOKEN\n");
  std::filesystem::create_directory_symlink(outside_ + "/store", home_ + "/.aws");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome run =
      sh_in(*sandbox, "cat '" + outside_ + "/store/token'; cat '" + home_ + "/.aws/token'");
  EXPECT_EQ(run.output.find("TOKEN"), std::string::npos) << run.output;
  EXPECT_NE(sh_plain("cat '" + home_ + "/.aws/token'").output.find("TOKEN"), std::string::npos);
}

TEST_F(SandboxFiles, GitConfigInTheRootIsReadOnly) {
  std::filesystem::create_directories(root_ + "/.git");
  write(root_ + "/.git/config", "[core]\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome denied = sh_in(*sandbox, "echo '[core] hooksPath = /x' >> .git/config");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("Read-only file system"), std::string::npos) << denied.output;
  EXPECT_EQ(read(root_ + "/.git/config"), "[core]\n");
  // Not even from a cwd inside it, nor by undoing the mount (Landlock forbids umount).
  EXPECT_NE(sh_in(*sandbox, "cd .git && echo x > new").exit_code, 0);
  EXPECT_NE(sh_in(*sandbox, "umount -l .git; echo x > .git/new").exit_code, 0);
  EXPECT_FALSE(exists(root_ + "/.git/new"));
  EXPECT_TRUE(sh_plain("echo x >> .git/config").ok());
}

TEST_F(SandboxFiles, GitAddFailsOnItsIndexLockAndGitStatusWorks) {
  std::string git = program_path("git");
  if (git.empty()) GTEST_SKIP() << "git is not installed";
  ASSERT_TRUE(run_plain({git, "init", "-q"}).ok());
  write(root_ + "/a.txt", "a\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome status = run_in(*sandbox, {git, "status", "--short"});
  EXPECT_TRUE(status.ok()) << status.output;
  Outcome add = run_in(*sandbox, {git, "add", "a.txt"});
  EXPECT_NE(add.exit_code, 0);
  EXPECT_NE(add.output.find("index.lock"), std::string::npos) << add.output;
  EXPECT_TRUE(run_plain({git, "add", "a.txt"}).ok());
}

TEST_F(SandboxFiles, AWorktreesGitDirAndItsCommonDirAreReadOnly) {
  // A `.git` file names the repository elsewhere; here both lie inside a writable root.
  std::filesystem::create_directories(outside_ + "/main/.git/worktrees/w");
  write(outside_ + "/main/.git/config", "[core]\n");
  write(outside_ + "/main/.git/worktrees/w/commondir", "../..\n");
  write(root_ + "/.git", "gitdir: " + outside_ + "/main/.git/worktrees/w\n");
  Settings with_outside = settings();
  with_outside.writable = {outside_};
  auto sandbox = make(with_outside);
  ASSERT_TRUE(sandbox);
  Outcome run =
      sh_in(*sandbox, "echo x > '" + outside_ + "/main/.git/worktrees/w/HEAD' || " + "echo x >> '" +
                          outside_ + "/main/.git/config' || exit 3; exit 0");
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_EQ(read(outside_ + "/main/.git/config"), "[core]\n");
  EXPECT_TRUE(sh_in(*sandbox, "echo x > '" + outside_ + "/other'").ok());
}

TEST_F(SandboxFiles, AProtectedNameCreatedByTheJobIsListedAfterwards) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  EXPECT_TRUE(sandbox->existing_protected().empty());
  // Absent at the spawn, so not bound: the caller compares the lists before and after.
  EXPECT_TRUE(sh_in(*sandbox, "echo 'export X=1' > .envrc").ok());
  EXPECT_TRUE(exists(root_ + "/.envrc"));
  EXPECT_EQ(sandbox->existing_protected(), std::vector<std::string>{".envrc"});
  // Present at the next spawn: bound read-only.
  Outcome again = sh_in(*sandbox, "echo 'export Y=1' >> .envrc");
  EXPECT_NE(again.output.find("Read-only file system"), std::string::npos) << again.output;
}

// The binds are made once and joined by each spawn (held_namespace.h): a protected file that
// was replaced since (an editor saves by renaming a new file over it) is bound as it is now, not
// as the namespace first saw it.
TEST_F(SandboxFiles, AProtectedFileReplacedSinceTheLastSpawnIsReadAndBoundAsItIsNow) {
  write(root_ + "/.envrc", "first\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome first = sh_in(*sandbox, "cat .envrc");
  EXPECT_EQ(first.output, "first\n");
  write(root_ + "/.envrc.new", "second\n");
  ASSERT_EQ(::rename((root_ + "/.envrc.new").c_str(), (root_ + "/.envrc").c_str()), 0);
  Outcome second = sh_in(*sandbox, "cat .envrc; echo x >> .envrc");
  EXPECT_EQ(second.output.rfind("second\n", 0), 0u) << second.output;
  EXPECT_NE(second.output.find("Read-only file system"), std::string::npos) << second.output;
  EXPECT_EQ(read(root_ + "/.envrc"), "second\n");
}

// Jobs share the namespace; none of them can undo a bind in it for the next.
TEST_F(SandboxFiles, NoJobCanLoosenTheBindsTheNextOneJoins) {
  std::filesystem::create_directories(root_ + "/.git");
  write(root_ + "/.git/config", "[core]\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome undo = sh_in(*sandbox, "umount .git; umount -l .git; mount -o remount,rw .git; true");
  EXPECT_TRUE(undo.ok()) << undo.output;
  Outcome denied = sh_in(*sandbox, "echo x >> .git/config");
  EXPECT_NE(denied.output.find("Read-only file system"), std::string::npos) << denied.output;
  EXPECT_EQ(read(root_ + "/.git/config"), "[core]\n");
}

}  // namespace
}  // namespace toolhost::sandbox::testing
