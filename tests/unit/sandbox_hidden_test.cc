// What no sandboxed command may read: the caller's hidden paths (toolhost's MCP sign-in records)
// and the home's secret stores, outside the writable places (Landlock leaves them out) and
// inside one too (a project root at the home, a writable root, a state dir inside the project:
// the write rule grants reading, so the namespace covers them). Real kernel, real programs; each
// denial is checked against the same command run without the sandbox.

#include <algorithm>

#include "jobs/spawn.h"
#include "sandbox/hidden_paths.h"
#include "sandbox_test_util.h"

namespace toolhost::sandbox::testing {
namespace {

namespace fs = std::filesystem;

class SandboxHidden : public SandboxFixture {
 protected:
  // A state dir at `state` with one sign-in record.
  std::string records_in(const std::string& state) {
    const std::string records = state + "/mcp-oauth";
    fs::create_directories(records);
    ::chmod(records.c_str(), 0700);
    write(records + "/srv.json", "{\"access_token\": \"SECRET-TOKEN\"}\n");
    return records;
  }

  // `script` in the sandbox must not print the token; the same without it does.
  void expect_unreadable(const Sandbox& sandbox, const std::string& script) {
    Outcome run = sh_in(sandbox, script);
    EXPECT_EQ(run.spawn_error, 0);
    EXPECT_EQ(run.output.find("SECRET-TOKEN"), std::string::npos) << run.output;
    Outcome plain = sh_plain(script);
    EXPECT_NE(plain.output.find("SECRET-TOKEN"), std::string::npos) << plain.output;
  }
};

TEST_F(SandboxHidden, AHiddenDirectoryOutsideTheWritablePlacesIsUnreadable) {
  const std::string records = records_in(outside_ + "/state");
  Settings hiding = settings();
  hiding.hidden = {records};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  expect_unreadable(*sandbox, "cat '" + records + "/srv.json'");
  expect_unreadable(*sandbox, "cat '" + records + "'/*.json");
  Outcome denied = sh_in(*sandbox, "cat '" + records + "/srv.json'");
  EXPECT_NE(denied.exit_code, 0);
  // The state dir around it stays readable.
  write(outside_ + "/state/history.jsonl", "{}\n");
  auto rebuilt = make(hiding);
  ASSERT_TRUE(rebuilt);
  EXPECT_TRUE(sh_in(*rebuilt, "cat '" + outside_ + "/state/history.jsonl'").ok());
}

// The project root is the home: Landlock's rule on the root grants reading ~/.ssh.
TEST_F(SandboxHidden, ASecretStoreInsideTheWritableRootIsUnreadable) {
  Settings at_home = settings();
  at_home.root = home_;
  auto sandbox = make(at_home);
  ASSERT_TRUE(sandbox);
  const std::string key = home_ + "/.ssh/id_ed25519";
  Outcome run = sh_in(*sandbox, "cat '" + key + "'; cat '" + home_ + "'/.ssh/*");
  EXPECT_EQ(run.spawn_error, 0);
  EXPECT_EQ(run.output.find("PRIVATE KEY"), std::string::npos) << run.output;
  EXPECT_NE(sh_plain("cat '" + key + "'").output.find("PRIVATE KEY"), std::string::npos);
  Outcome listing = sh_in(*sandbox, "ls -a '" + home_ + "/.ssh'");
  EXPECT_EQ(listing.output.find("id_ed25519"), std::string::npos) << listing.output;
  // The rest of the home is the root: readable and writable as before.
  EXPECT_TRUE(sh_in(*sandbox, "cd '" + home_ + "' && cat notes.txt && echo x > made.txt").ok());
}

// A secret file (not a directory) inside the root reads as /dev/null, and writing it changes
// nothing on the host.
TEST_F(SandboxHidden, ASecretFileInsideTheWritableRootReadsEmptyAndStaysAsItWas) {
  write(home_ + "/.netrc", "machine x password SECRET-TOKEN\n");
  Settings at_home = settings();
  at_home.root = home_;
  auto sandbox = make(at_home);
  ASSERT_TRUE(sandbox);
  expect_unreadable(*sandbox, "cat '" + home_ + "/.netrc'");
  sh_in(*sandbox, "cd '" + home_ + "'; echo changed >> .netrc; echo changed > .netrc");
  EXPECT_EQ(read(home_ + "/.netrc"), "machine x password SECRET-TOKEN\n");
}

// The state dir inside the project (the tests' own Neovim has it so): the records' directory is
// covered by an empty, read-only directory that no job can unmount, write or open up.
TEST_F(SandboxHidden, AHiddenDirectoryInsideTheRootIsCoveredEmptyAndUnwritable) {
  const std::string records = records_in(root_ + "/state");
  Settings hiding = settings();
  hiding.hidden = {records};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  expect_unreadable(*sandbox, "cat state/mcp-oauth/srv.json");
  expect_unreadable(*sandbox,
                    "chmod 700 state/mcp-oauth; umount state/mcp-oauth; "
                    "umount -l state/mcp-oauth; cat state/mcp-oauth/srv.json");
  Outcome listing = sh_in(*sandbox, "ls -a state/mcp-oauth");
  EXPECT_EQ(listing.output.find("srv.json"), std::string::npos) << listing.output;
  Outcome write_in = sh_in(*sandbox, "echo x > state/mcp-oauth/new.json");
  EXPECT_NE(write_in.exit_code, 0);
  EXPECT_FALSE(exists(records + "/new.json"));
  // Nor moved away and read elsewhere (a mount point cannot be renamed or removed).
  Outcome moved = sh_in(*sandbox, "mv state/mcp-oauth moved; rm -rf state/mcp-oauth; cat moved/*");
  EXPECT_EQ(moved.output.find("SECRET-TOKEN"), std::string::npos) << moved.output;
  EXPECT_EQ(read(records + "/srv.json"), "{\"access_token\": \"SECRET-TOKEN\"}\n");
  // The rest of the state dir is the project's, as before.
  EXPECT_TRUE(sh_in(*sandbox, "echo x > state/other && cat state/other").ok());
}

TEST_F(SandboxHidden, AHiddenDirectoryInsideAWritableRootIsUnreadable) {
  const std::string records = records_in(outside_ + "/state");
  Settings hiding = settings();
  hiding.writable = {outside_};
  hiding.hidden = {records};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  expect_unreadable(*sandbox, "cat '" + records + "/srv.json'");
}

// Covered as it is at each spawn: made after the sandbox was built, or replaced by another
// directory (another inode) since the last spawn, it is covered all the same.
TEST_F(SandboxHidden, AHiddenDirectoryMadeOrReplacedSinceIsCoveredAtTheNextSpawn) {
  const std::string records = root_ + "/state/mcp-oauth";
  Settings hiding = settings();
  hiding.hidden = {records};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  EXPECT_TRUE(sh_in(*sandbox, "true").ok());
  records_in(root_ + "/state");
  expect_unreadable(*sandbox, "cat state/mcp-oauth/srv.json");
  fs::rename(records, root_ + "/state/old");
  records_in(root_ + "/state");
  expect_unreadable(*sandbox, "cat state/mcp-oauth/srv.json");
}

// Reached through a symlink (a state dir that is a link elsewhere), it is hidden where it lies.
TEST_F(SandboxHidden, AHiddenDirectoryReachedThroughASymlinkIsUnreadable) {
  const std::string records = records_in(root_ + "/real-state");
  fs::create_directory_symlink(root_ + "/real-state", root_ + "/state");
  Settings hiding = settings();
  hiding.hidden = {root_ + "/state/mcp-oauth"};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  expect_unreadable(*sandbox, "cat state/mcp-oauth/srv.json real-state/mcp-oauth/srv.json");
}

// A hidden path that cannot be covered (nor looked up) stops the spawn: nothing runs with it
// readable, and the sandbox says which step failed, for the job's error. Here a directory the
// namespace cannot enter: owned by a user it does not map (as root), or that the host cannot
// search (as anyone else).
TEST_F(SandboxHidden, APathThatCannotBeCoveredFailsTheSpawnClosed) {
  const std::string locked = root_ + "/locked";
  const std::string records = records_in(locked);
  if (::getuid() == 0) {
    ASSERT_EQ(::chown(locked.c_str(), 12345, 12345), 0);
    ASSERT_EQ(::chmod(locked.c_str(), 0700), 0);
  } else {
    ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  }
  Settings hiding = settings();
  hiding.hidden = {records};
  auto sandbox = make(hiding);
  ASSERT_TRUE(sandbox);
  Outcome run = sh_in(*sandbox, "touch ran");
  EXPECT_NE(run.spawn_error, 0);
  EXPECT_FALSE(exists(root_ + "/ran"));
  const std::string step = sandbox->failed_step();
  EXPECT_TRUE(step.rfind("cover a hidden path (", 0) == 0 ||
              step.rfind("look up a hidden path (", 0) == 0)
      << step;
  EXPECT_NE(step.find(records), std::string::npos) << step;

  // As a job spawns: the step comes back for the job's error; a spawn that fails before the
  // sandbox (no such program) brings none back, whatever failed before it.
  jobs::JobSpec spec;
  spec.argv = {"/bin/sh", "-c", "touch ran"};
  spec.cwd = root_;
  spec.sandbox = std::shared_ptr<const Sandbox>(std::move(sandbox));
  pid_t pid = -1;
  std::string job_step;
  EXPECT_NE(jobs::spawn_process(spec, environment(), -1, -1, pid, -1, &job_step), 0);
  EXPECT_EQ(job_step, step);
  spec.argv = {"toolhost-no-such-program"};
  job_step.clear();
  EXPECT_EQ(jobs::spawn_process(spec, environment(), -1, -1, pid, -1, &job_step), ENOENT);
  EXPECT_EQ(job_step, "");
  EXPECT_FALSE(exists(root_ + "/ran"));
  ::chmod(locked.c_str(), 0700);  // for the fixture's clean-up
}

// Covers only where Landlock does not hide: outside the writable places a read is denied, and
// says so ("Permission denied"), which a cover (an empty directory) would not.
TEST_F(SandboxHidden, OnlyThoseBeneathAWritablePlaceAreCovered) {
  fs::create_directories(outside_ + "/real");
  fs::create_directory_symlink(outside_ + "/real", root_ + "/link");
  std::vector<std::string> covered =
      beneath_writable({home_ + "/.ssh", root_ + "/state/mcp-oauth", root_ + "/link/x",
                        outside_ + "/y", "/tmp/absent/z", root_},
                       {root_, "/tmp"});
  EXPECT_EQ(covered,
            (std::vector<std::string>{root_ + "/state/mcp-oauth", "/tmp/absent/z", root_}));
}

TEST_F(SandboxHidden, ARelativeHiddenPathIsIgnored) {
  Settings hiding = settings();
  hiding.hidden = {"state/mcp-oauth"};
  std::vector<std::string> paths = hidden_paths(hiding);
  EXPECT_EQ(std::find(paths.begin(), paths.end(), "state/mcp-oauth"), paths.end());
}

}  // namespace
}  // namespace toolhost::sandbox::testing
