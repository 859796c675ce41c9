// Issue #38: `toolhost run` without `--yes` runs an off-list command unasked in the kernel
// sandbox (where it cannot write outside the root), and with `sandbox_approved` what `--yes`
// approves runs there too; a real kernel, a real shell.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_command.h"
#include "sandbox/sandbox.h"
#include "test_jobs.h"
#include "tools/policy.h"

namespace toolhost::cli {
namespace {
namespace fs = std::filesystem;

class CliRunSandbox : public ::testing::Test {
 protected:
  CliRunSandbox() {
    if (!sandbox::probe().available) return;
    tools::set_sandbox_state({true, ""});
    fs::create_directories(root_);
    fs::create_directories(outside_);
  }
  ~CliRunSandbox() override { tools::set_sandbox_state({false, "the unit tests' default"}); }

  // A sidekick chat with one bash block running `command`; returns the transcript after.
  std::string run(const std::string& command, bool yes, const std::string& config = "") {
    std::ofstream(chat_) << "USER: go\nASSISTANT: ok\n\n**bash**\n```bash\n" << command
                         << "\n```\n";
    RunCommand run;
    run.file = chat_;
    run.yes = yes;
    run.root = root_;
    run.state_dir = state_dir_;
    run.cache_dir = dir_ / "cache";
    if (!config.empty()) {
      run.config_file = dir_ / "config.json";
      std::ofstream(run.config_file) << config;
    }
    std::ostringstream out, err;
    run_run_command(run, out, err);
    std::stringstream text;
    text << std::ifstream(chat_).rdbuf();
    return text.str() + err.str();
  }

  jobs::testing::TempDir dir_;
  std::string root_ = dir_ / "project";
  std::string state_dir_ = dir_ / "state";
  std::string chat_ = root_ + "/chat.md";
  // Outside the root and outside /tmp, which the sandbox lets a job write.
  fs::path outside_ = fs::path("/var/tmp") / ("toolhost-cli-sandbox-" + std::to_string(::getpid()));
};

TEST_F(CliRunSandbox, WithoutYesAnOffListCommandRunsInTheSandbox) {
  if (!sandbox::probe().available) GTEST_SKIP() << sandbox::probe().reason;
  const std::string target = (outside_ / "a").string();
  std::string text = run("echo inside > in.txt && touch " + target, /*yes=*/false);
  EXPECT_TRUE(fs::exists(root_ + "/in.txt")) << text;  // it ran, unasked
  EXPECT_FALSE(fs::exists(target)) << text;            // and could not write outside
  EXPECT_NE(text.find("likely denied"), std::string::npos) << text;
  // Approved with --yes, it runs outside the sandbox.
  text = run("touch " + target, /*yes=*/true);
  EXPECT_TRUE(fs::exists(target)) << text;
  fs::remove_all(outside_);
}

TEST_F(CliRunSandbox, SandboxApprovedKeepsWhatYesApprovesInTheSandbox) {
  if (!sandbox::probe().available) GTEST_SKIP() << sandbox::probe().reason;
  const std::string target = (outside_ / "b").string();
  std::string text = run("touch " + target, /*yes=*/true, R"({"sandbox_approved": true})");
  EXPECT_FALSE(fs::exists(target)) << text;
  EXPECT_NE(text.find("likely denied"), std::string::npos) << text;
  fs::remove_all(outside_);
}

// The MCP sign-in records (tokens, refresh tokens, client secrets) are never in a result: an
// unasked `cat` of one prints nothing of it, wherever the state dir lies (outside every
// writable place, under /tmp, inside the project). Their directory is made (0700) before the
// sandbox is, so that it covers the one a later sign-in writes into.
TEST_F(CliRunSandbox, AnUnaskedCommandCannotReadTheSignInRecords) {
  if (!sandbox::probe().available) GTEST_SKIP() << sandbox::probe().reason;
  for (const std::string& state :
       {(outside_ / "state").string(), dir_ / "state", root_ + "/.state"}) {
    state_dir_ = state;
    const std::string records = state + "/mcp-oauth";
    std::string text = run("true", /*yes=*/false);
    struct stat st {};
    ASSERT_EQ(::stat(records.c_str(), &st), 0) << text;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    std::ofstream(records + "/srv.json") << "{\"access_token\": \"SECRET-TOKEN\"}\n";
    text = run("cat " + records + "/srv.json; cat " + records + "/*",
               /*yes=*/false);
    EXPECT_NE(text.find("Failed: `cat "), std::string::npos) << text;  // it ran, unasked
    EXPECT_EQ(text.find("SECRET-TOKEN"), std::string::npos) << state << "\n" << text;
  }
  fs::remove_all(outside_);
}

}  // namespace
}  // namespace toolhost::cli
