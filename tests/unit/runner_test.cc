// tools/runner: a parsed call becomes a job, or a refusal that names the rule (SPEC 7).
#include "tools/runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_jobs.h"

namespace toolhost::tools {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

core::ToolCall terminal(json params) {
  core::ToolCall call;
  call.id = "0123456789ab";
  call.tool = "run_terminal_command";
  call.params = std::move(params);
  return call;
}

class Runner : public ::testing::Test {
 protected:
  Runner() {
    config_.shell = "sh";
    fs::create_directories(dir_ / "sub");
  }
  core::Config config_;
  jobs::testing::TempDir dir_;
};

TEST_F(Runner, TerminalCommandRunsInTheShellInTheRoot) {
  auto job = job_for(terminal({{"command", "make test"}}), RunContext{config_, dir_.path()});
  ASSERT_TRUE(job) << job.error();
  EXPECT_EQ(job->argv, (std::vector<std::string>{"sh", "-c", "make test"}));
  EXPECT_EQ(job->cwd, dir_.path());
  EXPECT_EQ(job->timeout_ms, 120000u);
  EXPECT_EQ(job->call_id, "0123456789ab");
  EXPECT_EQ(job->tool, "run_terminal_command");
}

TEST_F(Runner, CwdInsideTheRootIsUsedAndOutsideIsRefused) {
  auto inside =
      job_for(terminal({{"command", "ls"}, {"cwd", "sub"}}), RunContext{config_, dir_.path()});
  ASSERT_TRUE(inside) << inside.error();
  EXPECT_EQ(inside->cwd, fs::weakly_canonical(dir_ / "sub").string());
  auto outside =
      job_for(terminal({{"command", "ls"}, {"cwd", "../"}}), RunContext{config_, dir_.path()});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "cwd `../` is outside the project root");
}

TEST_F(Runner, ParametersOfTheWrongTypeAreRefusedByName) {
  auto number = job_for(terminal({{"command", 5}}), RunContext{config_, dir_.path()});
  ASSERT_FALSE(number);
  EXPECT_EQ(number.error(), "parameter `command` must be a string, not a number");
  auto list =
      job_for(terminal({{"command", json::array({"ls"})}}), RunContext{config_, dir_.path()});
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error(), "parameter `command` must be a string, not a list");
  auto cwd =
      job_for(terminal({{"command", "ls"}, {"cwd", true}}), RunContext{config_, dir_.path()});
  ASSERT_FALSE(cwd);
  EXPECT_EQ(cwd.error(), "parameter `cwd` must be a string, not a boolean");
}

TEST_F(Runner, UnknownToolsAreRefused) {
  core::ToolCall call;
  call.tool = "launch_rockets";
  auto job = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error(), "unknown tool `launch_rockets`");
}

TEST_F(Runner, EditToolsAreTasksWithEveryPathChecked) {
  core::ToolCall call;
  call.tool = "replace_in_file";
  call.params = {{"path", "a"}, {"search", {"x"}}, {"replace", {"y"}}};
  auto job = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_TRUE(job) << job.error();
  EXPECT_TRUE(job->task);
  EXPECT_FALSE(job->async);  // no editor: the disk
  call.tool = "move_file";
  call.params = {{"path", "a"}, {"new_path", "../a"}};
  auto outside = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "`../a` is outside the project root");
  call.tool = "create_or_replace_file";
  call.params = {{"path", "a"}};
  auto no_content = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(no_content);
  EXPECT_EQ(no_content.error(), "parameter `content` is missing");
}

TEST_F(Runner, LuaToolsNeedAnEditor) {
  for (const char* tool : {"edit_buffer", "get_quickfix", "get_diagnostics"}) {
    core::ToolCall call;
    call.tool = tool;
    call.params = {{"buffer", 1}, {"action", "delete"}};
    auto job = job_for(call, RunContext{config_, dir_.path()});
    ASSERT_FALSE(job);
    EXPECT_EQ(job.error(), "`" + std::string(tool) + "` is a Lua tool: it runs in Neovim only");
  }
}

TEST_F(Runner, ReadOnlyFileToolsAreTasksWithTheirPathChecked) {
  core::ToolCall call;
  call.tool = "read_file";
  call.params = {{"path", "sub/a.txt"}};
  auto job = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_TRUE(job) << job.error();
  EXPECT_TRUE(job->argv.empty());
  ASSERT_TRUE(job->task);
  EXPECT_EQ(job->tool, "read_file");
  { std::ofstream(dir_ / "sub/a.txt") << "x\n"; }
  jobs::TaskOutcome outcome = job->task();
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.out, "     1\tx\n");

  call.params = {{"path", "../a.txt"}};
  auto outside = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "`../a.txt` is outside the project root");

  call.tool = "list_directory";
  call.params = json::object();  // the root itself
  auto listing = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_TRUE(listing) << listing.error();
  EXPECT_EQ(listing->task().out, "sub/\n");
}

TEST_F(Runner, SearchFilesUsesRgWhenPresentElseGrep) {
  core::ToolCall call;
  call.tool = "search_files";
  call.params = {{"pattern", "-x"}, {"glob", "*.c"}};
  jobs::testing::TempDir bin;
  {
    jobs::testing::ScopedEnv path("PATH", bin.path());
    auto grep = job_for(call, RunContext{config_, dir_.path()});
    ASSERT_TRUE(grep) << grep.error();
    EXPECT_EQ(grep->argv,
              (std::vector<std::string>{"grep", "-rn", "--include=*.c", "--", "-x", "."}));
    EXPECT_EQ(grep->ok_exit_codes, (std::vector<int>{0, 1}));  // 1: nothing matched
    std::ofstream(bin / "rg") << "#!/bin/sh\n";
    fs::permissions(bin / "rg", fs::perms::owner_all);
    auto rg = job_for(call, RunContext{config_, dir_.path()});
    ASSERT_TRUE(rg) << rg.error();
    EXPECT_EQ(rg->argv, (std::vector<std::string>{"rg", "--line-number", "--no-heading", "--color",
                                                  "never", "--glob", "*.c", "--", "-x", "."}));
  }
  call.params = {{"pattern", "x"}, {"path", "../elsewhere"}};
  auto outside = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "`../elsewhere` is outside the project root");
  call.params = {{"path", "sub"}};
  auto no_pattern = job_for(call, RunContext{config_, dir_.path()});
  ASSERT_FALSE(no_pattern);
  EXPECT_EQ(no_pattern.error(), "parameter `pattern` is missing");
}

TEST_F(Runner, ModelTimeoutIsClamped) {
  config_.max_timeout_ms = 1000;
  auto job = [&](json timeout) {
    return job_for(terminal({{"command", "ls"}, {"timeout_ms", timeout}}),
                   RunContext{config_, dir_.path()})
        ->timeout_ms;
  };
  EXPECT_EQ(job(500), 500u);
  EXPECT_EQ(job(5000), 1000u);
  EXPECT_EQ(job(0), 1000u);  // only the user's config can switch the timeout off
  EXPECT_EQ(job(-3), 1000u);
  EXPECT_EQ(job("700"), 700u);
  EXPECT_EQ(job("soon"), 1000u);
  EXPECT_EQ(job(json::array()), 1000u);
}

TEST(ClampModelTimeout, BoundsAndFallbacks) {
  EXPECT_EQ(clamp_model_timeout(json(250), 600000), 250u);
  EXPECT_EQ(clamp_model_timeout(json(250.7), 600000), 250u);
  EXPECT_EQ(clamp_model_timeout(json(600001), 600000), 600000u);
  EXPECT_EQ(clamp_model_timeout(json(nullptr), 600000), 600000u);
  EXPECT_EQ(clamp_model_timeout(json("nan"), 600000), 600000u);
}

}  // namespace
}  // namespace toolhost::tools
