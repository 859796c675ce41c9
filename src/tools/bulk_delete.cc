#include "tools/bulk_delete.h"

#include <algorithm>
#include <vector>

namespace toolhost::tools {
namespace {

// The command's words: shell operators, quotes and backslashes are separators or dropped, so
// `'rm'`, `r\m`, `$(rm x)` and `sh -c "rm x"` all show the word `rm`.
std::vector<std::string> words_of(std::string_view command) {
  std::vector<std::string> words;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (char c : command) {
    if (c == '\\') continue;
    if (std::string_view(" \t\r\n;&|()`<>{}'\"").find(c) != std::string_view::npos) {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
  return words;
}

std::string_view basename(std::string_view word) {
  size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool starts_with(std::string_view word, std::string_view prefix) {
  return word.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::optional<std::string> bulk_delete_reason(std::string_view command) {
  const std::vector<std::string> words = words_of(command);
  auto has = [&](std::string_view word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  };
  auto has_prefix = [&](std::string_view prefix) {
    return std::any_of(words.begin(), words.end(),
                       [&](const std::string& w) { return starts_with(w, prefix); });
  };
  auto says = [](std::string_view what) {
    return "it " + std::string(what) +
           ", which the sandbox does not undo: deleting or overwriting in bulk always asks";
  };
  for (const std::string& word : words) {
    std::string_view program = basename(word);
    for (std::string_view remover : {"rm", "rmdir", "shred", "truncate", "unlink"}) {
      if (program == remover) return says("runs `" + std::string(remover) + "`");
    }
  }
  bool git = std::any_of(words.begin(), words.end(),
                         [](const std::string& w) { return basename(w) == "git"; });
  if (git) {
    if (has("clean")) return says("runs `git clean`");
    if (has("reset") && has("--hard")) return says("runs `git reset --hard`");
    if (has("checkout") && (has("--") || has("."))) return says("runs `git checkout --`");
    if (has("restore")) return says("runs `git restore`");
  }
  auto runs = [&](std::string_view name) {
    return std::any_of(words.begin(), words.end(),
                       [&](const std::string& w) { return basename(w) == name; });
  };
  if (runs("find") && (has("-delete"))) return says("runs `find … -delete`");
  if (runs("rsync") && (has_prefix("--delete") || has("--remove-source-files"))) {
    return says("runs `rsync --delete`");
  }
  if (runs("dd") && has_prefix("of=")) return says("runs `dd of=`");
  return std::nullopt;
}

}  // namespace toolhost::tools
