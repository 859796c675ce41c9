// Issue #28 §0, defence in depth: a git command auto-run starts does not run a program that a
// repository setting names. Each vector is shown to run its program when the user approved the
// command (so the test would notice a git that ignored the setting anyway), then not under
// auto-run, with git still doing its work.
#include "tools/git_guard.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "test_jobs.h"
#include "tools/runner.h"

namespace toolhost::tools {
namespace {

namespace fs = std::filesystem;
using jobs::testing::ScopedEnv;

class GitGuard : public jobs::testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    make();
    config_.shell = "sh";
    git("init -q .");
    write("notes.txt", "one\n");
    git("add notes.txt");
    git("-c user.name=t -c user.email=t@t commit -qm first");
    write("notes.txt", "one\ntwo\n");
  }

  void write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }
  void git(const std::string& args) {
    const std::string command = "cd '" + root_.string() + "' && git " + args + " >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // Runs `command` as a terminal call: started by auto-run, or approved by the user.
  jobs::JobInfo run_call(const std::string& command, bool automatic, const std::string& cwd = "") {
    core::ToolCall call;
    call.id = "0123456789ab";
    call.tool = "run_terminal_command";
    call.params = {{"command", command}};
    if (!cwd.empty()) call.params["cwd"] = cwd;
    RunContext context{config_, root_.string()};
    context.automatic = automatic;
    auto spec = job_for(call, context);
    EXPECT_TRUE(spec) << spec.error();
    return run(std::move(*spec));
  }

  // The program the setting names ran when the user approved `command`, and not under auto-run.
  // `before` runs before each of the two: what makes git reach the program again.
  void expect_only_approved_runs_it(
      const std::string& command, const std::string& marker, const std::string& cwd = "",
      const std::function<void()>& before = [] {}) {
    before();
    run_call(command, /*automatic=*/false, cwd);
    ASSERT_TRUE(fs::exists(root_ / marker)) << command << " did not run the program at all";
    fs::remove(root_ / marker);
    before();
    jobs::JobInfo job = run_call(command, /*automatic=*/true, cwd);
    EXPECT_FALSE(fs::exists(root_ / marker)) << command << " ran the program under auto-run";
    last_ = job;
  }

  std::string output() const { return last_.out.text(); }

  // The user's own git configuration stays out of the test.
  ScopedEnv no_global_{"GIT_CONFIG_GLOBAL", "/dev/null"};
  ScopedEnv no_system_{"GIT_CONFIG_NOSYSTEM", "1"};
  jobs::testing::TempDir dir_;
  fs::path root_ = fs::path(dir_.path());
  core::Config config_;
  jobs::JobInfo last_;
};

TEST_F(GitGuard, StatusDoesNotRunCoreFsmonitor) {
  git("config core.fsmonitor 'touch FSM; true'");
  expect_only_approved_runs_it("git status --short", "FSM");
  EXPECT_EQ(last_.status, core::Status::Succeeded);
  EXPECT_NE(output().find("notes.txt"), std::string::npos) << output();
}

TEST_F(GitGuard, DiffDoesNotRunDiffExternalAndStillShowsTheDiff) {
  git("config diff.external 'touch EXT; true'");
  expect_only_approved_runs_it("git diff", "EXT");
  EXPECT_EQ(last_.status, core::Status::Succeeded);
  EXPECT_NE(output().find("+two"), std::string::npos) << output();
}

TEST_F(GitGuard, DiffAndLogDoNotRunATextconvOrDiffDriverThatAttributesSelect) {
  write(".gitattributes", "*.txt diff=conv\n");
  git("config diff.conv.textconv 'touch TEXTCONV; cat'");
  expect_only_approved_runs_it("git diff", "TEXTCONV");
  EXPECT_NE(output().find("+two"), std::string::npos) << output();
  expect_only_approved_runs_it("git log -p -1", "TEXTCONV");
  git("config diff.conv.command 'touch DRIVER; true'");
  expect_only_approved_runs_it("git diff", "DRIVER");
  // log and show run no diff driver without --ext-diff (denied); their textconv still runs.
  git("-c user.name=t -c user.email=t@t commit -qam second");
  expect_only_approved_runs_it("git show", "TEXTCONV");
}

TEST_F(GitGuard, StatusRunsNoHook) {
  write("clean.txt", "same\n");
  git("add clean.txt");
  git("-c user.name=t -c user.email=t@t commit -qm clean");
  write(".git/hooks/post-index-change", "#!/bin/sh\ntouch HOOK\n");
  fs::permissions(root_ / ".git/hooks/post-index-change", fs::perms::owner_all);
  // A new mtime, the same content: git status refreshes the entry and writes the index, and
  // post-index-change runs.
  int hours = 0;
  expect_only_approved_runs_it("git status", "HOOK", "", [&] {
    fs::last_write_time(root_ / "clean.txt",
                        fs::file_time_type::clock::now() - std::chrono::hours(++hours));
  });
}

TEST_F(GitGuard, ADirectoryThatLooksLikeARepositoryIsNotOne) {
  // Written by plain edits (no `.git` in the names): HEAD, objects/, refs/, and a config that
  // makes the root its work tree with an fsmonitor.
  write("evil/HEAD", "ref: refs/heads/main\n");
  write("evil/objects/keep", "");
  write("evil/refs/keep", "");
  write("evil/config",
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n"
        "\tfsmonitor = touch BARE; true\n");
  expect_only_approved_runs_it("git status", "BARE", "evil");
  EXPECT_NE(last_.err.text().find("safe.bareRepository"), std::string::npos) << last_.err.text();
}

TEST_F(GitGuard, NoTransportRunsSoNoExtCommandEither) {
  git("config protocol.ext.allow always");
  expect_only_approved_runs_it("git ls-remote 'ext::sh -c touch% PROTOCOL'", "PROTOCOL");
}

TEST(GitGuardOptions, DiffLogShowAndWhatchangedGetNoExtDiffAndNoTextconv) {
  EXPECT_EQ(with_git_guard_options("git diff --stat"),
            "git diff --no-ext-diff --no-textconv --stat");
  EXPECT_EQ(with_git_guard_options("git  'log'  -p"), "git  'log' --no-ext-diff --no-textconv  -p");
  EXPECT_EQ(with_git_guard_options("git --no-pager show"),
            "git --no-pager show --no-ext-diff --no-textconv");
  EXPECT_EQ(with_git_guard_options("git -C sub whatchanged"),
            "git -C sub whatchanged --no-ext-diff --no-textconv");
  EXPECT_EQ(with_git_guard_options("git status"), "git status");
  EXPECT_EQ(with_git_guard_options("ls diff"), "ls diff");
  EXPECT_EQ(with_git_guard_options("gitk diff"), "gitk diff");
}

}  // namespace
}  // namespace toolhost::tools
