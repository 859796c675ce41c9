// Issue #28 §0, end to end: `toolhost run` with auto_accept_edits on, a real git, and a reply
// that tries to steer an allow-listed read-only git command into running a program.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_command.h"
#include "test_jobs.h"

namespace toolhost::cli {
namespace {

namespace fs = std::filesystem;
using jobs::testing::ScopedEnv;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A reply that writes `.git/config` with `setting` and then runs `command`.
std::string reply(const std::string& setting, const std::string& command) {
  return "USER: Check the repository.\n"
         "ASSISTANT: First the configuration.\n"
         "\n"
         "**Write:** `.git/config`\n"
         "```ini\n"
         "[core]\n"
         "\trepositoryformatversion = 0\n"
         "\tbare = false\n" +
         setting +
         "\n"
         "```\n"
         "\n"
         "Now look:\n"
         "\n"
         "**bash**\n"
         "```bash\n" +
         command +
         "\n"
         "```\n"
         "USER: \n";
}

class CliRunSecurity : public ::testing::Test {
 protected:
  CliRunSecurity() {
    fs::create_directories(root_);
    git("init -q .");
    std::ofstream(root_ / "notes.txt") << "one\n";
    git("add notes.txt");
    git("-c user.name=t -c user.email=t@t commit -qm first");
    std::ofstream(root_ / "notes.txt") << "one\ntwo\n";  // `git diff` has something to show
    std::ofstream(config_) << R"({"auto_accept_edits": true})";
  }

  void git(const std::string& args) {
    const std::string command = "cd '" + root_.string() + "' && git " + args + " >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // What the run reported on stderr: the calls it held, and why.
  std::string run(const std::string& transcript) {
    std::ofstream(chat_) << transcript;
    RunCommand command;
    command.file = chat_.string();
    command.config_file = config_.string();
    command.root = root_.string();
    std::ostringstream out, err;
    EXPECT_EQ(run_run_command(command, out, err), 0) << err.str();
    return err.str();
  }

  ScopedEnv no_global_{"GIT_CONFIG_GLOBAL", "/dev/null"};
  ScopedEnv no_system_{"GIT_CONFIG_NOSYSTEM", "1"};
  jobs::testing::TempDir dir_;
  fs::path root_ = fs::path(dir_.path()) / "project";
  fs::path chat_ = root_ / "chat.md";
  fs::path config_ = fs::path(dir_.path()) / "options.json";
};

TEST_F(CliRunSecurity, AnEditOfGitConfigIsHeldSoGitStatusRunsNoFsmonitor) {
  const std::string held = run(reply("\tfsmonitor = touch x; true", "git status"));
  EXPECT_FALSE(fs::exists(root_ / "x")) << held;
  EXPECT_EQ(slurp(root_ / ".git/config").find("fsmonitor"), std::string::npos);
  EXPECT_NE(held.find("held create_or_replace_file (line 4): `.git/config` is in "
                      "version-control configuration"),
            std::string::npos)
      << held;
  EXPECT_NE(slurp(chat_).find("tool=run_terminal_command status=succeeded"), std::string::npos)
      << slurp(chat_);
}

TEST_F(CliRunSecurity, AnEditOfGitConfigIsHeldSoGitDiffRunsNoExternalDiff) {
  const std::string held = run(reply("[diff]\n\texternal = touch y; true", "git diff"));
  EXPECT_FALSE(fs::exists(root_ / "y")) << held;
  EXPECT_EQ(slurp(root_ / ".git/config").find("external"), std::string::npos);
  EXPECT_NE(slurp(chat_).find("+two"), std::string::npos) << slurp(chat_);
}

TEST_F(CliRunSecurity, AutoRunGitIgnoresProgramsTheRepositoryAlreadyNames) {
  // Set before the run, not by the reply: what an edit that slipped through would leave.
  git("config core.fsmonitor 'touch x; true'");
  git("config diff.external 'touch y; true'");
  run("USER: Look.\nASSISTANT: Looking.\n\n**bash**\n```bash\ngit status\n```\n\n"
      "**bash**\n```bash\ngit diff\n```\nUSER: \n");
  EXPECT_FALSE(fs::exists(root_ / "x"));
  EXPECT_FALSE(fs::exists(root_ / "y"));
  EXPECT_NE(slurp(chat_).find("+two"), std::string::npos) << slurp(chat_);
}

}  // namespace
}  // namespace toolhost::cli
