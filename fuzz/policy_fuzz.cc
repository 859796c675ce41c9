// Fuzzes what auto-run may start: the allow-list rule (shell_decision under the default list)
// and path confinement (resolves_inside), in a temporary root made once per process with files,
// a subdirectory and symlinks to /, to the parent, out of the root, inside it, and dangling.
// Byte 0 picks the mode: even, the rest is a command; odd, a path (bit 1: written absolute,
// under the root; bit 2: through the link to / and back into the root). Only one direction is
// checked, with oracles written independently of the code under test:
//   - a command that auto-runs holds, outside real single quotes (a ' inside double quotes is
//     a plain character), none of ; & | < > ( ) $ ` \ {, no newline, CR or NUL, no quote left
//     open;
//     its first words are an allow-list entry; and each later word that names a path (holding
//     `/` or `..`, or the value of --opt=value) is no glob, does not start with ~ and resolves
//     inside the root, as the path oracle says; a short option holding a path (-f/etc/x) is
//     refused, since where its value starts is the program's business;
//   - an auto-run `tail` holds no short option cluster (`-x`, `+x`) with f or F and no long
//     option that --follow starts with; an auto-run `rg` no long option that --hostname-bin or
//     --pre starts with (issue #28 §0: they run a program or never end);
//   - a path said to reach no VCS control place (vcs_control_component) has no `.git`
//     component, in any case, as written or resolved (the root holds `.git` and `to_git`);
//   - a path said to resolve inside does: the longest existing prefix resolved with symlinks
//     (weakly_canonical, as the kernel walks it), the rest lexically, ends under the canonical
//     root. A path whose existing part ends in a dangling link is refused by confinement and
//     is resolved lexically here, so the other direction would not hold; it is not checked.
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/confine.h"
#include "tools/shell_policy.h"
#include "tools/vcs_paths.h"

namespace {

using namespace toolhost;
namespace fs = std::filesystem;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Root {
  fs::path base;
  std::string root;    // as given to the code under test
  fs::path canonical;  // what the oracle compares against
  std::vector<core::AllowEntry> allow = tools::default_allow_list();
};

const Root& root() {
  static const Root instance = [] {
    Root r;
    char pattern[] = "/tmp/toolhost-policy-fuzz-XXXXXX";
    check(::mkdtemp(pattern) != nullptr);
    r.base = pattern;
    const fs::path dir = r.base / "root";
    fs::create_directories(dir / "sub" / "deep");
    fs::create_directories(r.base / "outside");
    for (const fs::path& file :
         {dir / "a.txt", dir / "sub" / "b.txt", r.base / "outside" / "secret"}) {
      std::FILE* f = std::fopen(file.c_str(), "w");
      std::fclose(f);
    }
    fs::create_symlink("/", dir / "to_slash");
    fs::create_symlink("..", dir / "to_parent");
    fs::create_symlink(r.base / "outside", dir / "to_outside");
    fs::create_symlink("to_outside", dir / "chain");
    fs::create_symlink("sub", dir / "to_sub");
    fs::create_directories(dir / ".git" / "hooks");
    fs::create_symlink(".git", dir / "to_git");
    fs::create_symlink("sub/b.txt", dir / "to_file");
    fs::create_symlink("../../outside", dir / "sub" / "up_out");
    fs::create_symlink("..", dir / "sub" / "up");
    fs::create_symlink(dir, dir / "self");
    fs::create_symlink("loop", dir / "loop");
    fs::create_symlink(r.base / "outside" / "new", dir / "dangling_out");
    fs::create_symlink("nothing", dir / "dangling_in");
    // The root as the host may get it: through a symlink, not canonical.
    fs::create_symlink("root", r.base / "via");
    r.root = (r.base / "via").string();
    r.canonical = fs::canonical(dir);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(root().base, ec);
    });
    return r;
  }();
  return instance;
}

// nullopt when the oracle cannot tell (a system call failed on the way).
std::optional<bool> inside(const std::string& path) {
  const Root& r = root();
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::path(r.root) / path, ec);
  if (ec) return std::nullopt;
  const fs::path rel = resolved.lexically_relative(r.canonical);
  return !rel.empty() && *rel.begin() != "..";
}

bool has_dot_git(const fs::path& path) {
  for (const fs::path& part : path) {
    std::string name = part.string();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == ".git") return true;
  }
  return false;
}

void check_vcs(const std::string& path) {
  const Root& r = root();
  if (path.find('\0') != std::string::npos) return;
  if (tools::vcs_control_component(r.root, path)) return;
  const fs::path given(path);
  check(!has_dot_git(given.is_absolute() ? given.lexically_relative(r.root) : given));
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::path(r.root) / path, ec);
  if (ec) return;
  const fs::path rel = resolved.lexically_relative(r.canonical);
  if (rel.empty() || *rel.begin() == "..") return;
  check(!has_dot_git(rel));
}

void check_path(const std::string& path) {
  check_vcs(path);
  if (!tools::resolves_inside(root().root, path)) return;
  check(path.find('\0') == std::string::npos);
  check(path.empty() || (path[0] != '~' && path[0] != '-'));
  check(inside(path).value_or(true));
}

struct Word {
  std::string text;    // quotes removed
  bool glob = false;   // an unquoted * ? [
  bool tilde = false;  // an unquoted ~ first
};

constexpr std::string_view kMeta = ";&|<>()$`\\{";

// The shell's view of a command, written from POSIX quoting: nullopt when a metacharacter is
// outside real single quotes or a quote is left open.
std::optional<std::vector<Word>> shell_words(std::string_view command) {
  if (command.find_first_of("\n\r") != std::string_view::npos) return std::nullopt;
  std::vector<Word> words;
  std::optional<Word> word;
  char quote = 0;
  for (char c : command) {
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        word->text.push_back(c);
      continue;
    }
    if (kMeta.find(c) != std::string_view::npos) return std::nullopt;
    if (quote == '"') {
      if (c == '"')
        quote = 0;
      else
        word->text.push_back(c);
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (word) words.push_back(*word);
      word.reset();
      continue;
    }
    if (!word) {
      word = Word{};
      word->tilde = c == '~';
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else {
      word->glob = word->glob || c == '*' || c == '?' || c == '[';
      word->text.push_back(c);
    }
  }
  if (quote) return std::nullopt;
  if (word) words.push_back(*word);
  return words;
}

void check_command(const std::string& command) {
  const Root& r = root();
  if (!tools::shell_decision(command, r.allow, r.root).auto_run) return;
  // execve ends the argument at a NUL: the shell would run less than what was checked.
  check(command.find('\0') == std::string::npos);
  auto words = shell_words(command);
  check(words.has_value() && !words->empty());
  size_t matched = 0;
  for (const auto& entry : r.allow) {
    bool equal = entry.words.size() <= words->size();
    for (size_t i = 0; equal && i < entry.words.size(); ++i) {
      equal = (*words)[i].text == entry.words[i];
    }
    if (equal) matched = std::max(matched, entry.words.size());
  }
  check(matched > 0);
  const std::string& program = (*words)[0].text;
  for (size_t i = matched; i < words->size(); ++i) {
    const Word& w = (*words)[i];
    const std::string name = w.text.substr(0, w.text.find('='));
    auto starts = [&](std::string_view option) {
      return name.size() > 2 && name.rfind("--", 0) == 0 && option.substr(0, name.size()) == name;
    };
    if (program == "tail") {
      const bool cluster =
          name.size() > 1 && (name[0] == '+' || (name[0] == '-' && name[1] != '-'));
      check(!(cluster && name.find_first_of("fF", 1) != std::string::npos));
      check(!starts("--follow"));
    }
    if (program == "rg") check(!starts("--hostname-bin") && !starts("--pre"));
    check(!w.tilde);
    std::string value = w.text;
    if (value.rfind('-', 0) == 0) {
      const size_t equals = value.find('=');
      const bool names_path =
          value.find('/') != std::string::npos || value.find("..") != std::string::npos;
      if (equals == std::string::npos) {
        check(!names_path);
        continue;
      }
      value = value.substr(equals + 1);
    }
    if (w.glob && !w.text.empty() && w.text[0] == '.') __builtin_trap();
    const bool path = !value.empty() && (value[0] == '/' || value.find('/') != std::string::npos ||
                                         value.find("..") != std::string::npos || value[0] == '~');
    if (!path) continue;
    check(!w.glob && value[0] != '~');
    check(inside(value).value_or(true));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((mode & 1) == 0) {
    check_command(text);
    return 0;
  }
  if (mode & 2) text = root().root + "/" + text;
  if (mode & 4) text = "to_slash" + root().canonical.string() + "/" + text;
  check_path(text);
  return 0;
}
