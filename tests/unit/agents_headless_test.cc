// `toolhost mcp serve` without Neovim: the agent's calls run on toolhost's engine with
// `toolhost run`'s policy (SPEC 13.5). Nothing sleeps: every wait is on the loop.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "agents/headless_backend.h"
#include "test_jobs.h"
#include "test_loop.h"

namespace toolhost::agents {
namespace {

using jobs::testing::read_file;
using jobs::testing::TempDir;
using testing::TestLoop;

class Headless : public ::testing::Test {
 protected:
  void make_backend(bool approve_all = false) {
    HeadlessBackend::Options options;
    options.root = root_.path();
    options.approve_all = approve_all;
    options.config.kill_grace_ms = 200;
    options.config.shell = "sh";
    backend_ = std::make_unique<HeadlessBackend>(loop_.get(), std::move(options));
  }
  void TearDown() override {
    if (!backend_) return;
    bool done = false;
    backend_->shutdown([&] { done = true; });
    EXPECT_TRUE(loop_.run_until([&] { return done; }));
    backend_.reset();
  }

  // Starts a call; its result lands in `result`, its output updates in `outputs`.
  void start(uint64_t id, const std::string& tool, mcp::Json arguments) {
    mcp::ToolBackend::Sink sink;
    sink.output = [this](const std::string& lines) { outputs_.push_back(lines); };
    sink.done = [this, id](mcp::CallResult result) { results_[id] = std::move(result); };
    backend_->start({id, tool, std::move(arguments), "claude-code"}, std::move(sink));
  }
  mcp::CallResult call(const std::string& tool, mcp::Json arguments) {
    uint64_t id = next_++;
    start(id, tool, std::move(arguments));
    EXPECT_TRUE(loop_.run_until([&] { return results_.count(id) > 0; })) << tool;
    return results_[id];
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
  }

  TestLoop loop_;
  TempDir root_;
  std::unique_ptr<HeadlessBackend> backend_;
  std::map<uint64_t, mcp::CallResult> results_;
  std::vector<std::string> outputs_;
  uint64_t next_ = 1;
};

TEST_F(Headless, ListsEveryBuiltInToolWithHonestHints) {
  make_backend();
  std::map<std::string, mcp::Tool> tools;
  for (auto& tool : backend_->tools()) tools[tool.name] = tool;
  ASSERT_TRUE(tools.count("run_terminal_command"));
  EXPECT_EQ(tools["run_terminal_command"].annotations.destructive, true);
  EXPECT_EQ(tools["read_file"].annotations.read_only, true);
  EXPECT_EQ(tools["delete_file"].annotations.destructive, true);
  EXPECT_EQ(tools["read_file"].input_schema["required"][0], "path");
}

TEST_F(Headless, AReadRunsAtOnceAndAnswersTheFileText) {
  make_backend();
  write("notes.txt", "first line\n");
  mcp::CallResult result = call("read_file", {{"path", "notes.txt"}});
  EXPECT_FALSE(result.is_error) << result.text;
  EXPECT_NE(result.text.find("first line"), std::string::npos) << result.text;
}

TEST_F(Headless, AnAllowListedCommandRunsAndStreamsItsOutput) {
  make_backend();
  write("from-the-shell", "");
  mcp::CallResult result = call("run_terminal_command", {{"command", "ls"}});
  EXPECT_FALSE(result.is_error) << result.text;
  EXPECT_NE(result.text.find("from-the-shell"), std::string::npos) << result.text;
  ASSERT_FALSE(outputs_.empty());
  EXPECT_EQ(outputs_.front(), "from-the-shell");
}

TEST_F(Headless, ACommandThatNeedsApprovalIsRefusedSayingItNeedsNeovim) {
  make_backend();
  write("keep.txt", "x");
  mcp::CallResult result = call("run_terminal_command", {{"command", "rm keep.txt"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("approval needs Neovim"), std::string::npos) << result.text;
  EXPECT_NE(result.text.find("--approve all"), std::string::npos) << result.text;
  EXPECT_TRUE(std::filesystem::exists(root_ / "keep.txt"));
}

TEST_F(Headless, ApproveAllRunsWhatWouldNeedApproval) {
  make_backend(/*approve_all=*/true);
  write("gone.txt", "x");
  mcp::CallResult result = call("run_terminal_command", {{"command", "rm gone.txt"}});
  EXPECT_FALSE(result.is_error) << result.text;
  EXPECT_FALSE(std::filesystem::exists(root_ / "gone.txt"));
}

TEST_F(Headless, APathOutsideTheRootIsAnErrorResult) {
  make_backend(/*approve_all=*/true);
  mcp::CallResult result = call("read_file", {{"path", "/etc/hostname"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("outside"), std::string::npos) << result.text;
}

TEST_F(Headless, AFailedCommandIsAnErrorHeadedByItsStatus) {
  make_backend(/*approve_all=*/true);
  mcp::CallResult result = call("run_terminal_command", {{"command", "echo why >&2; exit 3"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(result.text.rfind("✗ run_terminal_command: exit 3", 0), 0u) << result.text;
  EXPECT_NE(result.text.find("why"), std::string::npos) << result.text;
}

TEST_F(Headless, CancelStopsTheJobAndAnswersNothing) {
  make_backend(/*approve_all=*/true);
  start(7, "run_terminal_command", {{"command", "echo $$ > pid; echo started; exec sleep 30"}});
  // Its output is the event that says the pid file is written.
  ASSERT_TRUE(loop_.run_until([&] { return !outputs_.empty(); }));
  pid_t pid = std::stoi(read_file(root_ / "pid"));
  backend_->cancel(7, "the agent cancelled the call");
  EXPECT_TRUE(loop_.run_until([&] { return ::kill(pid, 0) != 0; }));
  loop_.poll();
  EXPECT_EQ(results_.count(7), 0u);
}

}  // namespace
}  // namespace toolhost::agents
