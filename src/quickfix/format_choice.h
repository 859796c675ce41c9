#pragma once
// Which errorformat parses a call's output (issue #39), first match wins: the tool's own
// `quickfix` setting; `quickfix.commands` for the command's first word; the built-in map from
// that word. Otherwise none: never Neovim's default 'errorformat', which matches prose and
// costs two to three times a specific one. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace toolhost::quickfix {

struct Format {
  std::string name;      // what the doc and the tests call it: "gcc", "make", "cargo"
  std::string efm;       // an 'errorformat' value, or
  std::string compiler;  // the `:compiler` plugin whose 'errorformat' the worker reads
  // Its items are errors and warnings: they become diagnostics too (a grep's matches do not).
  bool diagnostics = true;
};

// The words of a shell command as far as choosing needs them: split at blanks, a quoted word
// kept whole (its quotes removed); stops at the first `;`, `|`, `&` or redirection.
std::vector<std::string> command_words(std::string_view command);

// The word that names the program: past `VAR=value` assignments, `env` (and its options),
// `npx`, `uv run`, `python -m` (python3 too), `exec`, `time`; a path's last part
// (`./node_modules/.bin/tsc` -> `tsc`). Empty when there is none. `rest` gets the arguments
// that follow it.
std::string program_word(const std::vector<std::string>& words,
                         std::vector<std::string>* rest = nullptr);

// The built-in choice for `words` (see above), or none.
std::optional<Format> builtin_format(const std::vector<std::string>& words);

// The whole rule. `tool_format`: the custom tool's own setting, if any.
std::optional<Format> choose_format(const std::vector<std::string>& words,
                                    const std::optional<core::QuickfixFormat>& tool_format,
                                    const core::QuickfixConfig& config);

}  // namespace toolhost::quickfix
