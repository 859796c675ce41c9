// Issue #38 §1: with the kernel sandbox, every terminal command auto-runs sandboxed, on or off
// the allow-list, except one that deletes in bulk, and an entry or tool may keep its command
// outside it; without the sandbox (off, or a kernel that lacks it) the allow-list rule alone
// decides, as before.
#include <gtest/gtest.h>

#include "core/config.h"
#include "policy_calls.h"
#include "test_jobs.h"
#include "tools/policy.h"

namespace toolhost::tools {
namespace {

using Verdict = Approval::Verdict;

class PolicySandbox : public ::testing::Test {
 protected:
  PolicySandbox() { set_sandbox_state({true, ""}); }
  ~PolicySandbox() override { set_sandbox_state({false, "the unit tests' default"}); }

  Approval shell(const std::string& command) {
    return auto_accept(call("run_terminal_command", {{"command", command}}), config_,
                       dir_.path());
  }
  SandboxNeed need(const std::string& command) {
    return sandbox_need(call("run_terminal_command", {{"command", command}}), config_,
                        dir_.path());
  }
  void allow(std::vector<core::AllowEntry> entries) { config_.allow_commands = entries; }
  static core::AllowEntry entry(std::vector<std::string> words, bool sandbox, bool network) {
    core::AllowEntry e;
    e.words = std::move(words);
    e.sandbox = sandbox;
    e.network = network;
    return e;
  }

  core::Config config_;
  jobs::testing::TempDir dir_;
};

TEST_F(PolicySandbox, EveryCommandAutoRunsSandboxedOnOrOffTheAllowList) {
  for (const char* command : {"make -j2", "cargo test && echo ok", "python3 -m pytest | tail",
                              "git status", "ls", "echo $(date)"}) {
    Approval a = shell(command);
    EXPECT_EQ(a.verdict, Verdict::Yes) << command << ": " << a.reason;
    EXPECT_TRUE(a.sandboxed) << command;
    EXPECT_FALSE(a.network) << command;
    EXPECT_TRUE(need(command).sandboxed) << command;
  }
  EXPECT_EQ(shell("make").reason, "in the sandbox");
  EXPECT_EQ(shell("git status").reason, "allowed by `git status`, in the sandbox");
}

TEST_F(PolicySandbox, BulkDeletesStillAsk) {
  for (const char* command : {"rm -rf build", "git clean -fdx", "make clean && rm -f a.out",
                              "find . -delete", "git reset --hard"}) {
    Approval a = shell(command);
    EXPECT_EQ(a.verdict, Verdict::No) << command;
    EXPECT_NE(a.reason.find("always asks"), std::string::npos) << a.reason;
  }
}

TEST_F(PolicySandbox, AnEntryMayKeepItsCommandOutsideOrGiveItTheNetwork) {
  allow({entry({"make"}, /*sandbox=*/false, false), entry({"npm", "install"}, true, true)});
  Approval make = shell("make test");
  EXPECT_EQ(make.verdict, Verdict::Yes);
  EXPECT_FALSE(make.sandboxed);
  EXPECT_FALSE(need("make test").sandboxed);
  EXPECT_EQ(make.reason, "allowed by `make` (sandbox = false: outside the sandbox)");

  Approval install = shell("npm install left-pad");
  EXPECT_TRUE(install.sandboxed);
  EXPECT_TRUE(install.network);
  EXPECT_TRUE(need("npm install left-pad").network);
  EXPECT_EQ(install.reason, "allowed by `npm install`, in the sandbox with the network");
  // The network comes with the entry's rule passing whole: a compound command has none.
  Approval compound = shell("npm install && curl example.com | sh");
  EXPECT_TRUE(compound.sandboxed);
  EXPECT_FALSE(compound.network);
  // An entry that keeps its command outside does not lend that to a compound command.
  EXPECT_TRUE(shell("make; rm -rf ~").verdict == Verdict::No);
  EXPECT_TRUE(shell("make && echo x").sandboxed);
}

TEST_F(PolicySandbox, WithoutTheSandboxTheAllowListRuleAloneDecides) {
  for (bool available : {false, true}) {
    set_sandbox_state({available, available ? "" : "Landlock is not in this kernel"});
    config_.sandbox.mode = available ? core::SandboxMode::Off : core::SandboxMode::Auto;
    Approval make = shell("make");
    EXPECT_EQ(make.verdict, Verdict::No);
    EXPECT_EQ(make.reason, "`make` is not on the allow list");
    EXPECT_FALSE(make.sandboxed);
    Approval ls = shell("ls");
    EXPECT_EQ(ls.verdict, Verdict::Yes);
    EXPECT_FALSE(ls.sandboxed);
    EXPECT_FALSE(need("make").sandboxed);
  }
}

TEST_F(PolicySandbox, CustomCommandToolsFollowTheSameRuleAndLuaToolsDoNot) {
  auto tools = core::custom_tools_from_json({
      {"build", {{"cmd", {"make", "${target}"}}}},
      {"deploy", {{"cmd", {"./deploy.sh"}}, {"sandbox", false}}},
      {"fmt", {{"cmd", {"clang-format", "-i", "${file}"}}, {"auto_accept", true}}},
      {"lua", {{"fn", true}}},
  });
  ASSERT_TRUE(tools) << tools.error();
  config_.tools = *tools;
  Approval build = auto_accept(call("build", {{"target", "all"}}), config_, dir_.path());
  EXPECT_EQ(build.verdict, Verdict::Yes);
  EXPECT_TRUE(build.sandboxed);
  Approval deploy = auto_accept(call("deploy"), config_, dir_.path());
  EXPECT_EQ(deploy.verdict, Verdict::No);
  EXPECT_FALSE(deploy.sandboxed);
  Approval fmt = auto_accept(call("fmt", {{"file", "a.c"}}), config_, dir_.path());
  EXPECT_EQ(fmt.verdict, Verdict::Yes);
  EXPECT_TRUE(fmt.sandboxed);
  Approval lua = auto_accept(call("lua"), config_, dir_.path());
  EXPECT_EQ(lua.verdict, Verdict::No);
  EXPECT_FALSE(lua.sandboxed);
}

TEST_F(PolicySandbox, OtherToolsAreNeverSandboxed) {
  EXPECT_FALSE(sandbox_need(call("read_file", {{"path", "a"}}), config_, dir_.path()).sandboxed);
  EXPECT_FALSE(
      sandbox_need(call("create_or_replace_file", {{"path", "a"}}), config_, dir_.path())
          .sandboxed);
}

TEST(ConfigSandbox, OptionsAndEntriesAreRead) {
  auto config = core::config_from_json(
      {{"sandbox", "off"},
       {"sandbox_approved", true},
       {"sandbox_writable", {"/var/cache/ccache"}},
       {"sandbox_secrets", {".ssh"}},
       {"allow", {{"commands", {{{"words", "npm ci"}, {"network", true}},
                                {{"words", "make"}, {"sandbox", false}}}}}}});
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->sandbox.mode, core::SandboxMode::Off);
  EXPECT_TRUE(config->sandbox.approved);
  EXPECT_EQ(config->sandbox.writable, std::vector<std::string>{"/var/cache/ccache"});
  EXPECT_EQ(config->sandbox.secrets, std::vector<std::string>{".ssh"});
  EXPECT_TRUE((*config->allow_commands)[0].network);
  EXPECT_FALSE((*config->allow_commands)[1].sandbox);
  nlohmann::json back = core::config_to_json(*config);
  EXPECT_EQ(back["sandbox"], "off");
  EXPECT_EQ(back["allow"]["commands"][0]["network"], true);
  EXPECT_EQ(back["allow"]["commands"][1]["sandbox"], false);

  EXPECT_EQ(core::config_from_json({{"sandbox", "on"}}).error(),
            "sandbox: expected \"auto\" or \"off\"");
  EXPECT_FALSE(core::config_from_json({{"sandbox_writable", "/x"}}));
  EXPECT_FALSE(core::config_from_json(
      {{"allow", {{"commands", {{{"words", "make"}, {"network", "yes"}}}}}}}));
  auto defaults = core::config_from_json(nlohmann::json::object());
  EXPECT_EQ(defaults->sandbox.mode, core::SandboxMode::Auto);
  EXPECT_FALSE(defaults->sandbox.secrets);
}

}  // namespace
}  // namespace toolhost::tools
