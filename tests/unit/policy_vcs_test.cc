// Issue #28 §0: an edit that changes what git (or another VCS) reads as its repository or its
// configuration needs approval whatever auto_accept_edits says; any other edit still auto-runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/protected_names.h"
#include "policy_calls.h"
#include "test_jobs.h"
#include "tools/policy.h"
#include "tools/vcs_paths.h"

namespace toolhost::tools {
namespace {

using Verdict = Approval::Verdict;
namespace fs = std::filesystem;

class PolicyVcs : public ::testing::Test {
 protected:
  PolicyVcs() {
    config_.auto_accept_edits = true;
    fs::create_directories(dir_ / ".git");
    fs::create_directories(dir_ / "src");
  }
  Approval write(const std::string& path) {
    return auto_accept(call("create_or_replace_file", {{"path", path}, {"content", "x"}}), config_,
                       dir_.path());
  }
  core::Config config_;
  jobs::testing::TempDir dir_;
};

TEST_F(PolicyVcs, WritingGitConfigNeedsApprovalDespiteAutoAcceptEdits) {
  Approval a = write(".git/config");
  EXPECT_EQ(a.verdict, Verdict::No);
  EXPECT_EQ(a.reason,
            "`.git/config` is in version-control configuration (`.git`), which decides what "
            "programs git and its kin run: it always needs approval");
  Approval replace = auto_accept(
      call("replace_in_file", {{"path", ".git/config"}, {"search", {"a"}}, {"replace", {"b"}}}),
      config_, dir_.path());
  EXPECT_EQ(replace.verdict, Verdict::No);
  // An edit tool added later (peer-forms' insert_into_file) is held by its `path` alone.
  Approval insert = auto_accept(
      call("insert_into_file", {{"path", ".git/config"}, {"line", 0}, {"content", "x"}}), config_,
      dir_.path());
  EXPECT_EQ(insert.verdict, Verdict::No);
}

TEST_F(PolicyVcs, EveryRepositoryAndConfigurationPlaceNeedsApproval) {
  const std::string absolute = dir_ / ".git/config";
  const std::vector<std::string> paths = {".git",
                                          ".git/hooks/post-index-change",
                                          ".git/info/attributes",
                                          "sub/.git",
                                          "deep/er/.git/config",
                                          ".gitattributes",
                                          "src/.gitattributes",
                                          ".gitmodules",
                                          ".gitconfig",
                                          ".lfsconfig",
                                          ".hg/hgrc",
                                          ".hgsub",
                                          ".svn/entries",
                                          ".bzr/branch/x",
                                          "_darcs/prefs/defaults",
                                          ".jj/repo/config.toml",
                                          ".pijul/config",
                                          ".sl/config",
                                          ".fslckout",
                                          "_FOSSIL_",
                                          ".fossil-settings/x",
                                          "CVS/Root",
                                          "old/cvs/Entries",
                                          absolute};
  for (const std::string& path : paths) {
    EXPECT_EQ(write(path).verdict, Verdict::No) << path;
  }
}

TEST_F(PolicyVcs, NamesMatchAsACaseInsensitiveFileSystemWouldRead) {
  // macOS and Windows: case, trailing dots and spaces, HFS+'s ignored code points, 8.3 names.
  for (const char* path :
       {".GIT/config", ".Git/config", ".git./config", ".git /config", ".g\u200cit/config",
        ".git\ufeff/config", "GIT~1/config", ".GitAttributes", "GITMOD~1"}) {
    EXPECT_EQ(write(path).verdict, Verdict::No) << path;
  }
}

TEST_F(PolicyVcs, APathThroughASymlinkIntoGitNeedsApproval) {
  fs::create_directory_symlink(".git", dir_ / "innocent");
  Approval a = write("innocent/config");
  EXPECT_EQ(a.verdict, Verdict::No);
  EXPECT_NE(a.reason.find("(`.git`)"), std::string::npos) << a.reason;
  fs::create_directory_symlink("src/../.git", dir_ / "roundabout");
  EXPECT_EQ(write("roundabout/hooks/pre-commit").verdict, Verdict::No);
}

TEST_F(PolicyVcs, EveryPathParameterCountsTheSourceAndTheDestinationOfAMove) {
  // Generic by parameter, not by tool: an edit tool with `new_path` or any `*_path`.
  EXPECT_TRUE(vcs_edit_reason({{"path", "a.txt"}, {"new_path", ".git/config"}}, dir_.path()));
  EXPECT_TRUE(vcs_edit_reason({{"path", ".git/config"}, {"new_path", "a.txt"}}, dir_.path()));
  EXPECT_TRUE(vcs_edit_reason({{"target_path", ".gitattributes"}}, dir_.path()));
  EXPECT_FALSE(vcs_edit_reason({{"path", "a.txt"}, {"content", ".git/config"}}, dir_.path()));
}

TEST_F(PolicyVcs, OrdinaryEditsStillAutoRunWithAutoAcceptEdits) {
  for (const char* path : {"src/git.c", ".github/workflows/ci.yml", ".gitignore", "gitconfig.md",
                           "docs/.git-notes", "notes/cvs.txt", ".jjx", "x.git"}) {
    Approval a = write(path);
    EXPECT_EQ(a.verdict, Verdict::Yes) << path << ": " << a.reason;
  }
}

// Issue #38 §3: the sandbox's protected list is the file tools' too: what an editor, direnv or
// an agent runs when the project is next opened asks, whatever auto_accept_edits says.
TEST_F(PolicyVcs, EditorAndAgentConfigurationNeedsApprovalDespiteAutoAcceptEdits) {
  for (const char* path : {".nvim.lua", ".nvimrc", ".exrc", ".envrc", "sub/.envrc", ".mcp.json",
                           ".vscode/tasks.json", ".idea/workspace.xml", ".claude/settings.json",
                           ".codex/config.toml", ".agents/x.md", ".VSCode/tasks.json"}) {
    Approval a = write(path);
    EXPECT_EQ(a.verdict, Verdict::No) << path;
    EXPECT_NE(a.reason.find("is in editor or agent configuration"), std::string::npos)
        << a.reason;
  }
  EXPECT_EQ(write(".envrc").reason,
            "`.envrc` is in editor or agent configuration (`.envrc`), which runs programs when "
            "the project is next opened: it always needs approval");
  EXPECT_EQ(write("envrc.md").verdict, Verdict::Yes);
}

TEST(ProtectedNames, OneListServesTheFileToolsAndTheSandbox) {
  const auto& names = core::protected_names();
  for (const char* name : {".git", ".gitmodules", ".nvim.lua", ".nvimrc", ".exrc", ".envrc",
                           ".mcp.json", ".vscode", ".idea", ".claude", ".codex", ".agents"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_TRUE(is_vcs_control_name(name)) << name;
  }
}

TEST_F(PolicyVcs, WithoutAutoAcceptEditsTheReasonStaysTheSame) {
  config_.auto_accept_edits = false;
  EXPECT_EQ(write(".git/config").reason,
            "create_or_replace_file edits files (auto_accept_edits is off)");
}

}  // namespace
}  // namespace toolhost::tools
