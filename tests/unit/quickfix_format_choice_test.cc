// Which errorformat a command's output gets (issue #39): the tool's setting, the
// `quickfix.commands` option, the built-in map from the program's word; else none.
#include <gtest/gtest.h>

#include "quickfix/format_choice.h"
#include "quickfix/formats.h"

namespace toolhost::quickfix {
namespace {

std::optional<Format> builtin(const std::string& command) {
  return builtin_format(command_words(command));
}

std::string name_of(const std::string& command) {
  auto format = builtin(command);
  return format ? format->name : "";
}

TEST(QuickfixCommandWords, QuotesAreKeptWholeAndOperatorsEndTheCommand) {
  EXPECT_EQ(command_words("grep -n 'a b' src | head"),
            (std::vector<std::string>{"grep", "-n", "a b", "src"}));
  EXPECT_EQ(command_words("make -C build && ./run"),
            (std::vector<std::string>{"make", "-C", "build"}));
  EXPECT_EQ(command_words("  cargo  build  2>&1"),
            (std::vector<std::string>{"cargo", "build", "2"}));
}

TEST(QuickfixProgramWord, SkipsWrappersAssignmentsAndPaths) {
  EXPECT_EQ(program_word(command_words("CC=clang make -j2")), "make");
  EXPECT_EQ(program_word(command_words("env -i RUST_LOG=1 cargo test")), "cargo");
  EXPECT_EQ(program_word(command_words("npx tsc --noEmit")), "tsc");
  EXPECT_EQ(program_word(command_words("uv run pytest -q")), "pytest");
  EXPECT_EQ(program_word(command_words("python3 -m pytest tests")), "pytest");
  EXPECT_EQ(program_word(command_words("python -m pytest")), "pytest");
  EXPECT_EQ(program_word(command_words("./node_modules/.bin/eslint .")), "eslint");
  EXPECT_EQ(program_word(command_words("/usr/bin/gcc-13 -c a.c")), "gcc");
  EXPECT_EQ(program_word(command_words("time exec ninja")), "ninja");
  EXPECT_EQ(program_word(command_words("env")), "");
  EXPECT_EQ(program_word(command_words("python3 script.py")), "python3");
}

TEST(QuickfixBuiltinFormat, CompilerPluginsForTheirTools) {
  for (const char* tool : {"cargo", "rustc", "go", "tsc", "eslint", "jest"}) {
    auto format = builtin(std::string(tool) + " x");
    ASSERT_TRUE(format) << tool;
    EXPECT_EQ(format->compiler, tool);
    EXPECT_TRUE(format->efm.empty());
    EXPECT_TRUE(format->diagnostics);
  }
  EXPECT_EQ(builtin("npx jest --ci")->compiler, "jest");
}

TEST(QuickfixBuiltinFormat, OursForCompilersBuildToolsTestsAndSearches) {
  EXPECT_EQ(name_of("gcc -Wall a.c"), "gcc");
  EXPECT_EQ(name_of("g++ a.cc"), "gcc");
  EXPECT_EQ(name_of("clang++-17 a.cc"), "gcc");
  EXPECT_EQ(name_of("cc a.c"), "gcc");
  EXPECT_EQ(builtin("gcc a.c")->efm, std::string(formats::kGcc));
  EXPECT_EQ(name_of("make -j2"), "make");
  EXPECT_EQ(name_of("cmake --build build"), "make");
  EXPECT_EQ(name_of("ninja -C build"), "make");
  EXPECT_EQ(builtin("make")->efm, std::string(formats::kMake));
  EXPECT_EQ(name_of("pytest -x"), "pytest");
  EXPECT_EQ(name_of("python3 -m pytest --tb=short"), "pytest");
  EXPECT_EQ(name_of("rg --vimgrep TODO"), "rg");
  EXPECT_EQ(name_of("grep -rn TODO src"), "grep");
  EXPECT_EQ(name_of("grep --line-number TODO a b"), "grep");
  EXPECT_FALSE(builtin("rg --vimgrep x")->diagnostics);
  EXPECT_FALSE(builtin("grep -n x a b")->diagnostics);
}

TEST(QuickfixBuiltinFormat, NoneWithoutAKnownForm) {
  EXPECT_FALSE(builtin("rg TODO"));         // not the --vimgrep form
  EXPECT_FALSE(builtin("grep -r TODO ."));  // no line numbers
  EXPECT_FALSE(builtin("grep -e n x"));     // `-e`'s value is no -n
  EXPECT_FALSE(builtin("ls -la"));
  EXPECT_FALSE(builtin("cd build && make"));  // the first word is cd
  EXPECT_FALSE(builtin(""));
  EXPECT_FALSE(builtin("echo gcc"));
}

TEST(QuickfixChooseFormat, TheToolsSettingThenTheOptionThenTheMap) {
  core::QuickfixConfig config;
  const auto words = command_words("make all");
  core::QuickfixFormat tool;
  tool.efm = "%f|%l|%m";
  EXPECT_EQ(choose_format(words, tool, config)->efm, "%f|%l|%m");
  core::QuickfixFormat cargo;
  cargo.compiler = "cargo";
  config.commands.emplace_back("make", cargo);
  EXPECT_EQ(choose_format(words, std::nullopt, config)->compiler, "cargo");
  EXPECT_EQ(choose_format(words, tool, config)->efm, "%f|%l|%m");
  core::QuickfixFormat off;
  off.off = true;
  EXPECT_FALSE(choose_format(words, off, config));
  config.commands.clear();
  EXPECT_EQ(choose_format(words, std::nullopt, config)->name, "make");
  config.enabled = false;
  EXPECT_FALSE(choose_format(words, std::nullopt, config));
}

TEST(QuickfixChooseFormat, AnOptionAddsACommandTheMapDoesNotKnow) {
  core::QuickfixConfig config;
  core::QuickfixFormat mypy;
  mypy.efm = "%f:%l: %t%*[^:]: %m";
  config.commands.emplace_back("mypy", mypy);
  auto format = choose_format(command_words("uv run mypy src"), std::nullopt, config);
  ASSERT_TRUE(format);
  EXPECT_EQ(format->name, "mypy");
  EXPECT_EQ(format->efm, mypy.efm);
}

}  // namespace
}  // namespace toolhost::quickfix
