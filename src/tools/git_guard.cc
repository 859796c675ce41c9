#include "tools/git_guard.h"

#include <string_view>

namespace toolhost::tools {
namespace {

// Each setting names a program git may run for status, diff, log or show, or lets git find a
// repository that names one. A value git cannot run (`""`) fails closed: git reports an error
// instead of running anything.
constexpr std::pair<const char*, const char*> kGuardedSettings[] = {
    {"core.fsmonitor", "false"},          // a hook program run by every status and diff
    {"core.hooksPath", "/dev/null"},      // no hook at all (status runs post-index-change)
    {"diff.external", ""},                // `--no-ext-diff` is added where git takes it
    {"gpg.program", ""},                  // signature checks: --show-signature, %G?
    {"gpg.openpgp.program", ""},          //
    {"gpg.x509.program", ""},             //
    {"gpg.ssh.program", ""},              //
    {"log.showSignature", "false"},       //
    {"safe.bareRepository", "explicit"},  // a directory that looks like a repository is not one
};

struct Span {
  size_t begin;
  size_t end;
  std::string text;  // quotes removed
};

// The words of a command that passed the allow list's first step: quotes but no escapes.
std::vector<Span> words(std::string_view command) {
  std::vector<Span> out;
  char quote = 0;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (!quote && (c == ' ' || c == '\t')) {
      if (in_word) out.back().end = i;
      in_word = false;
      continue;
    }
    if (!in_word) out.push_back(Span{i, command.size(), ""});
    in_word = true;
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        out.back().text.push_back(c);
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else {
      out.back().text.push_back(c);
    }
  }
  return out;
}

// git's options before the subcommand that take the next word as their value.
bool takes_value(const std::string& option) {
  for (const char* name :
       {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}) {
    if (option == name) return true;
  }
  return false;
}

bool shows_diffs(const std::string& subcommand) {
  for (const char* name : {"diff", "log", "show", "whatchanged"}) {
    if (subcommand == name) return true;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> git_guard_env() {
  std::vector<std::pair<std::string, std::string>> env;
  size_t index = 0;
  for (const auto& [key, value] : kGuardedSettings) {
    env.emplace_back("GIT_CONFIG_KEY_" + std::to_string(index), key);
    env.emplace_back("GIT_CONFIG_VALUE_" + std::to_string(index), value);
    ++index;
  }
  // Set, not added to: entries of the user's own GIT_CONFIG_COUNT past ours are not read.
  env.emplace_back("GIT_CONFIG_COUNT", std::to_string(index));
  env.emplace_back("GIT_ALLOW_PROTOCOL", "");
  env.emplace_back("GIT_PAGER", "cat");
  return env;
}

std::string with_git_guard_options(const std::string& command) {
  const std::vector<Span> split = words(command);
  if (split.empty() || split[0].text != "git") return command;
  for (size_t i = 1; i < split.size(); ++i) {
    const std::string& word = split[i].text;
    if (!word.empty() && word[0] == '-') {
      if (takes_value(word)) ++i;
      continue;
    }
    if (!shows_diffs(word)) return command;
    std::string guarded = command;
    guarded.insert(split[i].end, " --no-ext-diff --no-textconv");
    return guarded;
  }
  return command;
}

}  // namespace toolhost::tools
