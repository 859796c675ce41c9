// Issue #38: `toolhost run` without `--yes` runs an off-list command unasked in the kernel
// sandbox (where it cannot write outside the root), and with `sandbox_approved` what `--yes`
// approves runs there too; a real kernel, a real shell.
#include <gtest/gtest.h>

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
    run.state_dir = dir_ / "state";
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

}  // namespace
}  // namespace toolhost::cli
