// Issue #28 §0: the default allow list's options that run or name a program, and the forms
// that never end, need approval; near misses still auto-run.
#include <gtest/gtest.h>

#include "shell_policy_rows.h"
#include "test_jobs.h"
#include "tools/shell_policy.h"

namespace toolhost::tools {
namespace {

using Row = ShellPolicyRow;

const Row kRows[] = {
    // ripgrep 14 runs --hostname-bin to fill {host} in a hyperlink: an in-root script.
    {"rg --hostname-bin=./script.sh --hyperlink-format=default x", false,
     "`--hostname-bin` is not allowed with `rg`"},
    {"rg --hostname-bin ./script.sh --hyperlink-format=default x", false,
     "`--hostname-bin` is not allowed with `rg`"},
    {"rg --hyperlink-format=default x", true, "allowed by `rg`"},
    {"rg --pr=./x y", false, "`--pre` is not allowed with `rg`"},  // an abbreviation
    // `tail -f` never ends: it would hold the chain until the timeout.
    {"tail -f log.txt", false, "`-f` is not allowed with `tail`"},
    {"tail -F log.txt", false, "`-F` is not allowed with `tail`"},
    {"tail -n 5 -f log.txt", false, "`-f` is not allowed with `tail`"},
    {"tail -nf log.txt", false, "`-f` is not allowed with `tail`"},
    {"tail -5f log.txt", false, "`-f` is not allowed with `tail`"},
    {"tail +5f log.txt", false, "`-f` is not allowed with `tail`"},  // the obsolete form
    {"tail --follow log.txt", false, "`--follow` is not allowed with `tail`"},
    {"tail --follow=name log.txt", false, "`--follow` is not allowed with `tail`"},
    {"tail --fol log.txt", false, "`--follow` is not allowed with `tail`"},  // getopt_long
    {"tail --f=name log.txt", false, "`--follow` is not allowed with `tail`"},
    {"tail -n 5 log.txt", true, "allowed by `tail`"},
    {"tail -c 100 log.txt", true, "allowed by `tail`"},
    // git: `--follow` of log ends; the options naming programs or other repositories do not.
    {"git log --follow src", true, "allowed by `git log`"},
    {"git log --oneline -3", true, "allowed by `git log`"},
    {"git log --outp=x", false, "`--output` is not allowed with `git log`"},
    {"git diff --ext", false, "`--ext-diff` is not allowed with `git diff`"},
    {"git show --textc HEAD", false, "`--textconv` is not allowed with `git show`"},
    {"git status --config-env=core.fsmonitor=X", false,
     "`--config-env` is not allowed with `git status`"},
    {"git log --namespace=x", false, "`--namespace` is not allowed with `git log`"},
};

TEST(ShellPolicyPrograms, OptionsThatRunProgramsOrNeverEndNeedApproval) {
  jobs::testing::TempDir dir;
  const auto allow = default_allow_list();
  for (const Row& row : kRows) {
    ShellDecision decision = shell_decision(row.command, allow, dir.path());
    EXPECT_EQ(decision.auto_run, row.auto_run) << row.command << ": " << decision.reason;
    EXPECT_NE(decision.reason.find(row.reason), std::string::npos)
        << row.command << ": " << decision.reason;
  }
}

}  // namespace
}  // namespace toolhost::tools
