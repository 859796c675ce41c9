#include "quickfix/format_choice.h"

#include <algorithm>
#include <cctype>

#include "quickfix/formats.h"

namespace toolhost::quickfix {
namespace {

bool is_assignment(const std::string& word) {
  auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<long>(eq), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string basename(const std::string& word) {
  auto slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
}

// `gcc-13`, `clang++-17` -> their family; other words as they are.
std::string without_version(const std::string& word) {
  auto dash = word.rfind('-');
  if (dash == std::string::npos || dash + 1 == word.size()) return word;
  const bool digits =
      std::all_of(word.begin() + static_cast<long>(dash) + 1, word.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  return digits ? word.substr(0, dash) : word;
}

bool has_flag(const std::vector<std::string>& args, std::string_view long_flag, char short_flag) {
  for (const auto& arg : args) {
    if (arg == long_flag) return true;
    // A cluster of short options (`-rn`); an option's own value (`-e pattern`) is not one.
    if (arg.size() > 1 && arg[0] == '-' && arg[1] != '-' &&
        arg.find(short_flag) != std::string::npos &&
        std::all_of(arg.begin() + 1, arg.end(),
                    [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) {
      return true;
    }
  }
  return false;
}

Format ours(const char* name, std::string_view efm, bool diagnostics = true) {
  return Format{name, std::string(efm), "", diagnostics};
}

std::optional<Format> from_setting(const std::string& name, const core::QuickfixFormat& setting) {
  if (setting.off) return std::nullopt;
  if (!setting.compiler.empty()) return Format{setting.compiler, "", setting.compiler, true};
  return Format{name, setting.efm, "", true};
}

}  // namespace

std::vector<std::string> command_words(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == '\'' || c == '"') {
      auto end = command.find(c, i + 1);
      if (end == std::string_view::npos) end = command.size();
      word.append(command.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == ';' || c == '|' || c == '&' || c == '<' || c == '>' || c == '(' || c == ')') {
      break;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string program_word(const std::vector<std::string>& words, std::vector<std::string>* rest) {
  size_t i = 0;
  auto at = [&](size_t k) { return k < words.size() ? basename(words[k]) : std::string(); };
  while (i < words.size()) {
    const std::string word = at(i);
    if (is_assignment(words[i]) || word == "exec" || word == "time" || word == "npx" ||
        word == "command") {
      ++i;
    } else if (word == "env") {
      ++i;
      while (i < words.size() && (is_assignment(words[i]) || words[i].rfind('-', 0) == 0)) ++i;
    } else if (word == "uv" && at(i + 1) == "run") {
      i += 2;
    } else if ((word == "python" || word == "python3") && words.size() > i + 1 &&
               words[i + 1] == "-m") {
      i += 2;
    } else {
      break;
    }
  }
  if (i >= words.size()) return {};
  if (rest) rest->assign(words.begin() + static_cast<long>(i) + 1, words.end());
  return without_version(basename(words[i]));
}

std::optional<Format> builtin_format(const std::vector<std::string>& words) {
  std::vector<std::string> args;
  const std::string word = program_word(words, &args);
  for (const char* compiler : {"cargo", "rustc", "go", "tsc", "eslint", "jest"}) {
    if (word == compiler) return Format{word, "", word, true};
  }
  for (const char* c : {"gcc", "g++", "cc", "c++", "clang", "clang++"}) {
    if (word == c) return ours("gcc", formats::kGcc);
  }
  for (const char* build : {"make", "gmake", "cmake", "ninja"}) {
    if (word == build) return ours("make", formats::kMake);
  }
  if (word == "pytest" || word == "py.test") return ours("pytest", formats::kPytest);
  if (word == "rg" && has_flag(args, "--vimgrep", '\0')) {
    return ours("rg", formats::kVimgrep, false);
  }
  if ((word == "grep" || word == "egrep" || word == "fgrep") &&
      has_flag(args, "--line-number", 'n')) {
    return ours("grep", formats::kGrep, false);
  }
  return std::nullopt;
}

std::optional<Format> choose_format(const std::vector<std::string>& words,
                                    const std::optional<core::QuickfixFormat>& tool_format,
                                    const core::QuickfixConfig& config) {
  if (!config.enabled) return std::nullopt;
  const std::string word = program_word(words);
  if (tool_format) return from_setting(word.empty() ? "tool" : word, *tool_format);
  for (const auto& [name, setting] : config.commands) {
    if (name == word) return from_setting(name, setting);
  }
  return builtin_format(words);
}

}  // namespace toolhost::quickfix
