// Custom tools that run commands (SPEC 7): argv expansion, the injection suite (real
// processes through the job engine: a param is one argv element, never shell text), cwd, env
// and timeouts. `cmds` sequences: custom_sequence_test.cc.
#include "tools/custom_job.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_custom_job.h"

namespace toolhost::tools {
namespace {

using jobs::JobInfo;
using jobs::Status;
using nlohmann::json;
using testing::tool;
using V = std::vector<std::string>;
using CustomJob = testing::CustomJobTest;
namespace fs = std::filesystem;

// The injection payloads: each must reach the child as the very bytes given, as one argument.
const std::vector<std::string> kPayloads = {
    "; rm -rf x; touch pwned",
    "$(touch pwned)",
    "`touch pwned`",
    "a\ntouch pwned",
    "'\"",
    "*",
    "~/x",
    "--help",
    "$HOME ${arg} $$",
    "a b  c",
    "x && touch pwned || touch pwned",
    "\"; touch pwned; \"",
    "'; touch pwned; '",
    "\\",
    "",
};

TEST(CustomJobExpansion, EachPlaceholderExpandsInsideItsElement) {
  core::CustomTool t =
      tool({{"cmd", {"x"}},
            {"params", {{"opt", {{"required", false}}}, {"req", {{"required", true}}}}}});
  auto expand = [&](V argv, json params) {
    auto out = expand_argv(argv, t, params);
    EXPECT_TRUE(out) << out.error();
    return out ? *out : V{};
  };
  EXPECT_EQ(expand({"grep", "${req}", "."}, {{"req", "a b"}}), (V{"grep", "a b", "."}));
  EXPECT_EQ(expand({"--name=${req}.txt"}, {{"req", "v"}}), (V{"--name=v.txt"}));
  EXPECT_EQ(expand({"${req}${req}"}, {{"req", "ab"}}), (V{"abab"}));
  EXPECT_EQ(expand({"${req}"}, {{"req", 5}}), (V{"5"}));
  EXPECT_EQ(expand({"${req}"}, {{"req", 1.5}}), (V{"1.5"}));
  EXPECT_EQ(expand({"${req}"}, {{"req", true}}), (V{"true"}));
  EXPECT_EQ(expand({"${req}"}, {{"req", json::array({1, "a"})}}), (V{"[1,\"a\"]"}));
  EXPECT_EQ(expand({"${req}"}, {{"req", {{"k", "v w"}}}}), (V{"{\"k\":\"v w\"}"}));
  // An absent optional param is "", and its element stays (possibly empty).
  EXPECT_EQ(expand({"a", "${opt}", "-${opt}-"}, {{"req", 1}}), (V{"a", "", "--"}));
  EXPECT_EQ(expand({"${opt}"}, {{"opt", nullptr}}), (V{""}));
  // `$${` is a literal `${`; a value is never expanded again.
  EXPECT_EQ(expand({"$${req}", "${req}"}, {{"req", "${opt}"}, {"opt", "no"}}),
            (V{"${req}", "${opt}"}));
  EXPECT_EQ(expand({"$HOME", "${HOME:-x}"}, json::object()), (V{"$HOME", "${HOME:-x}"}));

  auto missing = expand_argv({"${req}"}, t, {{"req", nullptr}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "parameter `req` is missing");
  auto nul = expand_argv({"${req}"}, t, {{"req", std::string("a\0b", 3)}});
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error(), "parameter `req` holds a NUL byte");
}

TEST(CustomJobExpansion, ShellTemplateGetsPositionalReferencesQuotedForWhereTheyStand) {
  core::CustomTool t = tool({{"cmd", {"x ${a} ${b}"}}, {"shell", true}});
  auto script = [&](V argv, json params = {{"a", "A"}, {"b", "B"}}) {
    auto out = shell_argv("sh", argv, t, params);
    EXPECT_TRUE(out) << out.error();
    return out ? *out : V{};
  };
  EXPECT_EQ(script({"printf", "'%s|'", "${a}"}),
            (V{"sh", "-c", "printf '%s|' \"${1}\"", "toolhost", "A"}));
  // Numbered by first use, each value passed once.
  EXPECT_EQ(script({"echo ${b} ${a} ${b}"}),
            (V{"sh", "-c", "echo \"${1}\" \"${2}\" \"${1}\"", "toolhost", "B", "A"}));
  EXPECT_EQ(script({"echo \"x=${a}\""}), (V{"sh", "-c", "echo \"x=${1}\"", "toolhost", "A"}));
  EXPECT_EQ(script({"echo '${a}'"}), (V{"sh", "-c", "echo ''\"${1}\"''", "toolhost", "A"}));
  EXPECT_EQ(script({"echo", "\"it's", "${a}\""}),
            (V{"sh", "-c", "echo \"it's ${1}\"", "toolhost", "A"}));
  EXPECT_EQ(script({"echo \\\"${a}"}), (V{"sh", "-c", "echo \\\"\"${1}\"", "toolhost", "A"}));
  EXPECT_EQ(script({"echo \\${a}"}), (V{"sh", "-c", "echo \\\n\"${1}\"", "toolhost", "A"}));
  EXPECT_EQ(script({"echo $${HOME}"}), (V{"sh", "-c", "echo ${HOME}", "toolhost"}));
  auto missing = shell_argv("sh", {"echo ${a}"}, t, json::object());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "parameter `a` is missing");
}

TEST_F(CustomJob, CmdIsOneProcessAndCmdsASequenceInOneJob) {
  auto one = job({{"cmd", {"echo", "${x}"}}}, {{"x", "a"}});
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->argv, (V{"echo", "a"}));
  EXPECT_TRUE(one->steps.empty());
  EXPECT_EQ(one->cwd, root_.path());
  EXPECT_EQ(one->tool, "t");
  EXPECT_EQ(one->call_id, "0123456789ab");
  auto seq = job({{"cmds", {{"make"}, {"make", "${target}"}}}}, {{"target", "test"}});
  ASSERT_TRUE(seq) << seq.error();
  EXPECT_TRUE(seq->argv.empty());
  EXPECT_EQ(seq->steps, (std::vector<V>{{"make"}, {"make", "test"}}));
}

TEST_F(CustomJob, MissingRequiredParamIsRefusedByName) {
  auto used = job({{"cmd", {"echo", "${x}"}}}, json::object());
  ASSERT_FALSE(used);
  EXPECT_EQ(used.error(), "parameter `x` is missing");
  auto declared =
      job({{"cmd", {"echo"}}, {"params", {{"why", {{"required", true}}}}}}, json::object());
  ASSERT_FALSE(declared);
  EXPECT_EQ(declared.error(), "parameter `why` is missing");
}

TEST_F(CustomJob, ParamWithSemicolonIsOneArgvElement) {
  make();
  JobInfo info = run_tool({{"cmd", {"printf", "%s|", "${arg}"}}}, {{"arg", "; rm -rf x"}});
  EXPECT_EQ(info.status, Status::Succeeded) << info.error;
  EXPECT_EQ(info.out.text(), "; rm -rf x|");
}

TEST_F(CustomJob, InjectionPayloadsReachTheChildVerbatimAsOneArgument) {
  make();
  for (const auto& payload : kPayloads) {
    JobInfo info = run_tool({{"cmd", {"printf", "%s|", "${arg}"}}}, {{"arg", payload}});
    EXPECT_EQ(info.status, Status::Succeeded) << payload << ": " << info.error;
    EXPECT_EQ(info.out.text(), payload + "|") << payload;
    EXPECT_FALSE(exists("pwned")) << payload;
  }
}

TEST_F(CustomJob, InjectionPayloadsInsideAnElementStayInThatElement) {
  make();
  for (const auto& payload : kPayloads) {
    JobInfo info =
        run_tool({{"cmd", {"printf", "%s|", "--x=${arg}!", "${arg}${arg}"}}}, {{"arg", payload}});
    EXPECT_EQ(info.out.text(), "--x=" + payload + "!|" + payload + payload + "|") << payload;
    EXPECT_FALSE(exists("pwned")) << payload;
  }
}

TEST_F(CustomJob, ShellToolPassesInjectionPayloadsAsPositionalParameters) {
  make();
  for (const auto& payload : kPayloads) {
    JobInfo info =
        run_tool({{"cmd", {"printf", "'%s|'", "${arg}"}}, {"shell", true}}, {{"arg", payload}});
    EXPECT_EQ(info.status, Status::Succeeded) << payload << ": " << info.error;
    EXPECT_EQ(info.out.text(), payload + "|") << payload;
    EXPECT_FALSE(exists("pwned")) << payload;
  }
}

TEST_F(CustomJob, ShellToolKeepsPayloadsVerbatimInEveryQuoting) {
  make();
  for (const auto& payload : kPayloads) {
    // The template is the user's shell text (a pipe works); the value never becomes script,
    // unquoted, in double quotes or in single quotes.
    JobInfo info = run_tool(
        {{"cmd", {"printf '%s|' ${arg} \"pre-${arg}\" 'in-${arg}' | cat"}}, {"shell", true}},
        {{"arg", payload}});
    EXPECT_EQ(info.status, Status::Succeeded) << payload << ": " << info.error;
    EXPECT_EQ(info.out.text(), payload + "|pre-" + payload + "|in-" + payload + "|") << payload;
    EXPECT_FALSE(exists("pwned")) << payload;
  }
}

TEST_F(CustomJob, CwdOutsideTheRootIsRefused) {
  auto outside = job({{"cmd", {"pwd"}}, {"cwd", "../"}}, json::object());
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error(), "cwd `../` is outside the project root");
  auto absolute = job({{"cmd", {"pwd"}}, {"cwd", "/"}}, json::object());
  ASSERT_FALSE(absolute);
  EXPECT_EQ(absolute.error(), "cwd `/` is outside the project root");
}

TEST_F(CustomJob, CwdInsideTheRootIsWhereItRuns) {
  make();
  JobInfo info = run_tool({{"cmd", {"pwd"}}, {"cwd", "sub"}}, json::object());
  EXPECT_EQ(info.out.text(), fs::canonical(fs::path(root_.path()) / "sub").string() + "\n");
}

TEST_F(CustomJob, EnvReachesTheChild) {
  make();
  JobInfo plain = run_tool({{"cmd", {"sh", "-c", "printf '%s|' \"$GREETING\" \"$TOOLHOST\""}},
                            {"env", {{"GREETING", "hi there"}}}},
                           json::object());
  EXPECT_EQ(plain.out.text(), "hi there|1|");
  // In a shell tool the shell's own `${VAR}` is written `$${VAR}`.
  JobInfo shell = run_tool({{"cmd", {"printf '%s|' \"$${GREETING}\" ${x}"}},
                            {"shell", true},
                            {"env", {{"GREETING", "hello"}}}},
                           {{"x", "$GREETING"}});
  EXPECT_EQ(shell.out.text(), "hello|$GREETING|");
}

TEST_F(CustomJob, ToolTimeoutAppliesUnlessTheModelGivesOneWhichIsClamped) {
  json spec = {{"cmd", {"true"}}, {"timeout_ms", 5000}};
  EXPECT_EQ(job(spec, json::object())->timeout_ms, 5000u);
  EXPECT_EQ(job(spec, {{"timeout_ms", 300}})->timeout_ms, 300u);
  EXPECT_EQ(job(spec, {{"timeout_ms", 1e12}})->timeout_ms, config_.max_timeout_ms);
  EXPECT_EQ(job({{"cmd", {"true"}}}, json::object())->timeout_ms, config_.timeout_ms);
}

}  // namespace
}  // namespace toolhost::tools
