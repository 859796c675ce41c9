#include "tools/shell_policy.h"

#include <optional>

#include "tools/confine.h"

namespace toolhost::tools {
namespace {

struct Word {
  std::string text;   // quotes removed
  bool glob = false;  // holds an unquoted * ? or [
};

// Step 1: the first character the shell would treat as more than a word, else nullopt.
// Quotes are tracked as the shell reads them: a ' inside double quotes is a plain character,
// and inside double quotes `$`, ` and \ still expand (`ls "'" $(id) "'"` runs `id`).
std::optional<std::string> forbidden_character(std::string_view command) {
  char quote = 0;
  for (char c : command) {
    // The command reaches the shell as an argv string: it would run only what comes before a
    // NUL, not what was checked here (`git diff --ext-diff\0` would pass the deny list).
    if (c == '\0') return std::string("a NUL byte");
    if (c == '\n') return std::string("a newline");
    if (c == '\r') return std::string("a carriage return");
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      continue;
    }
    if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
      continue;
    }
    if (quote == '"' && c == '"') {
      quote = 0;
      continue;
    }
    for (char bad : std::string_view(";&|<>()$`\\{")) {
      if (c == bad) return "`" + std::string(1, c) + "` outside single quotes";
    }
  }
  if (quote == '\'') return std::string("an unclosed single quote");
  return std::nullopt;  // an unclosed double quote: step 2 says so
}

// Step 2's split, for a command that passed step 1 (so no escapes or expansions are left).
std::optional<std::vector<Word>> split_words(std::string_view command) {
  std::vector<Word> words;
  std::optional<Word> current;
  char quote = 0;
  for (char c : command) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        current->text.push_back(c);
      }
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (current) words.push_back(std::move(*current));
      current.reset();
      continue;
    }
    if (!current) current = Word{};
    if (c == '\'' || c == '"') {
      quote = c;
    } else {
      if (c == '*' || c == '?' || c == '[') current->glob = true;
      current->text.push_back(c);
    }
  }
  if (quote) return std::nullopt;
  if (current) words.push_back(std::move(*current));
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

const AllowEntry* matching_entry(const std::vector<Word>& words,
                                 const std::vector<AllowEntry>& allow) {
  const AllowEntry* best = nullptr;
  for (const auto& entry : allow) {
    if (entry.words.empty() || entry.words.size() > words.size()) continue;
    bool equal = true;
    for (size_t i = 0; i < entry.words.size() && equal; ++i) {
      equal = words[i].text == entry.words[i];
    }
    // The longest entry wins: `git log` with its deny list over a plain `git`.
    if (equal && (!best || entry.words.size() > best->words.size())) best = &entry;
  }
  return best;
}

// `--output`, `--output=x`, an abbreviation getopt_long would take for it (`--out`, `--fol=x`:
// GNU tools accept any unambiguous prefix), and for a one-letter option `-c` also a cluster
// holding it (`-ic`, `-5f`), or one written with `+` (`tail +5f`, the obsolete form).
bool is_denied(const std::string& word, const std::string& option) {
  if (word == option) return true;
  if (word.rfind(option + "=", 0) == 0) return true;
  if (option.rfind("--", 0) == 0 && word.rfind("--", 0) == 0) {
    const std::string name = word.substr(0, word.find('='));
    if (name.size() > 2 && option.compare(0, name.size(), name) == 0) return true;
  }
  const bool short_option = option.size() == 2 && option[0] == '-' && option[1] != '-';
  if (short_option && word.size() > 1 && word[0] == '+') {
    return word.find(option[1], 1) != std::string::npos;
  }
  if (short_option && word.size() > 2 && word[0] == '-' && word[1] != '-') {
    return word.find(option[1], 1) != std::string::npos;
  }
  return false;
}

// The part of a word that names a path, if any: the word, or the value of `--opt=value`.
std::optional<std::string> path_part(const std::string& word) {
  std::string value = word;
  if (word.rfind("-", 0) == 0) {
    size_t equals = word.find('=');
    if (equals == std::string::npos) return std::nullopt;
    value = word.substr(equals + 1);
  }
  if (!value.empty() && value[0] == '~') return value;
  if (!value.empty() && (value[0] == '/' || value.find('/') != std::string::npos ||
                         value.find("..") != std::string::npos)) {
    return value;
  }
  return std::nullopt;
}

ShellDecision ask(std::string reason) {
  return ShellDecision{false, std::move(reason)};
}

}  // namespace

AllowEntry allow_entry(std::string_view words, std::vector<std::string> deny) {
  AllowEntry entry;
  entry.deny = std::move(deny);
  auto split = split_words(words);
  if (split) {
    for (auto& word : *split) entry.words.push_back(std::move(word.text));
  }
  return entry;
}

// Each entry's options that run or name a program, write files or never end, from the tool's
// manual (git 2.39, ripgrep 14, GNU coreutils 9); |toolhost-security| gives the reasons.
std::vector<AllowEntry> default_allow_list() {
  const std::vector<std::string> git_deny = {
      "--output",  "--ext-diff",  "--textconv",   "-c",          "--exec-path",   "-C",
      "--git-dir", "--work-tree", "--config-env", "--namespace", "--super-prefix"};
  return {
      allow_entry("ls"),
      allow_entry("pwd"),
      allow_entry("cat"),
      allow_entry("head"),
      allow_entry("tail", {"-f", "-F", "--follow"}),
      allow_entry("wc"),
      allow_entry("rg", {"--pre", "--pre-glob", "-z", "--search-zip", "--hostname-bin"}),
      allow_entry("git status", git_deny),
      allow_entry("git diff", git_deny),
      allow_entry("git log", git_deny),
      allow_entry("git show", git_deny),
  };
}

ShellDecision shell_decision(std::string_view command, const std::vector<AllowEntry>& allow,
                             const std::string& root) {
  if (auto bad = forbidden_character(command)) return ask("it holds " + *bad);
  auto words = split_words(command);
  if (!words) return ask("it holds an unclosed double quote");
  if (words->empty()) return ask("it is empty");
  const AllowEntry* entry = matching_entry(*words, allow);
  if (!entry) return ask("`" + (*words)[0].text + "` is not on the allow list");
  const std::string name = joined(entry->words);
  for (size_t i = entry->words.size(); i < words->size(); ++i) {
    const Word& word = (*words)[i];
    for (const auto& option : entry->deny) {
      if (is_denied(word.text, option)) {
        return ask("`" + option + "` is not allowed with `" + name + "`");
      }
    }
    // `.*` can match `..` (dash, bash before 5.2): a dotted glob is a path word.
    if (word.glob && word.text[0] == '.') {
      return ask("the glob `" + word.text + "` may reach outside the root");
    }
    // `-f/etc/passwd`, `--x/..`: a value stuck to an option may be a path, but where it starts
    // is the program's business, so such a word is not resolved; it asks.
    if (word.text[0] == '-' && word.text.find('=') == std::string::npos &&
        (word.text.find('/') != std::string::npos || word.text.find("..") != std::string::npos)) {
      return ask("the option `" + word.text + "` may name a path outside the root");
    }
    auto path = path_part(word.text);
    if (!path) continue;
    if ((*path)[0] == '~') return ask("`" + *path + "` is in the home directory, outside the root");
    if (word.glob) return ask("the glob `" + word.text + "` may reach outside the root");
    if (!resolves_inside(root, *path)) return ask("`" + *path + "` is outside the root");
  }
  return ShellDecision{true, "allowed by `" + name + "`", entry};
}

}  // namespace toolhost::tools
