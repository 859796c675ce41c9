#pragma once
// Whether auto-run may run a terminal command without asking (SPEC 7's allow-list rule).
// `:ToolRun` never asks: it is the user's own approval. Tool-call text is written by a model, so
// everything here errs towards asking.

#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace toolhost::tools {

// `"git log"`, or `{ "git log", deny = { "--output" } }`: literal words, no patterns.
using core::AllowEntry;

// The read-only list of SPEC 7: ls, pwd, cat, head, tail, wc, rg, git status/diff/log/show,
// each without its options that run or name a program or never end (|toolhost-security|).
std::vector<AllowEntry> default_allow_list();

// `"git log"` split into words; deny lists as given.
AllowEntry allow_entry(std::string_view words, std::vector<std::string> deny = {});

struct ShellDecision {
  bool auto_run = false;
  std::string reason;  // why it needs approval, or which entry allowed it
  const AllowEntry* entry = nullptr;  // the entry that allowed it (in `allow`), when one did
};

// The rule, in order:
//   1. outside single quotes, none of ; & | < > ( ) $ ` \ (nor { for brace expansion), and no
//      newline, CR or NUL anywhere (the shell would run only what comes before a NUL);
//   2. split into words (POSIX quotes), the first words equal one entry's words;
//   3. no word is an option that entry denies (abbreviated too), and no word that names a
//      path (absolute, holding `/` or `..`, the value of `--opt=value` too) resolves outside
//      `root`; a word starting with `~` counts as outside, and so does a glob in a path word,
//      and an option holding `/` or `..` without `=` (`-f/etc/passwd`: where its value starts
//      is the program's business).
ShellDecision shell_decision(std::string_view command, const std::vector<AllowEntry>& allow,
                             const std::string& root);

}  // namespace toolhost::tools
