#include "sandbox/landlock_rules.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <set>

#include "sandbox/landlock_abi.h"

namespace toolhost::sandbox {
namespace {

// What "read" means: run programs, read files, list directories.
constexpr uint64_t kReadRights = landlock::kExecute | landlock::kReadFile | landlock::kReadDir;
// /dev/null is written by half the shell scripts there are (`> /dev/null` truncates); its
// ioctls (isatty's) answer ENOTTY, not EACCES, when allowed.
constexpr uint64_t kDevNullRights =
    landlock::kReadFile | landlock::kWriteFile | landlock::kTruncate | landlock::kIoctlDev;

class RulesetBuilder {
 public:
  RulesetBuilder(int fd, uint64_t handled) : fd_(fd), handled_(handled) {}

  // Adds `rights` beneath `path` (a file's rule keeps only the file rights). An absent path is
  // skipped: true. Otherwise false and `error_` on failure.
  bool allow(const std::string& path, uint64_t rights) {
    int path_fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (path_fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP) return true;
      return failed("open " + path);
    }
    struct stat st {};
    ::fstat(path_fd, &st);
    landlock::PathBeneathAttr rule{};
    rule.allowed_access = rights & handled_;
    if (!S_ISDIR(st.st_mode)) rule.allowed_access &= landlock::kFileRights;
    rule.parent_fd = path_fd;
    int result = landlock::add_rule(fd_, landlock::kRulePathBeneath, &rule, 0);
    int saved = errno;
    ::close(path_fd);
    errno = saved;
    return result == 0 || failed("landlock_add_rule " + path);
  }

  const std::string& error() const { return error_; }

 private:
  bool failed(const std::string& what) {
    error_ = what + ": " + std::strerror(errno);
    return false;
  }

  int fd_;
  uint64_t handled_;
  std::string error_;
};

std::string parent_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string child_of(const std::string& dir, const char* name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + name;
}

// Landlock can only allow, so "read everywhere but the secret stores" is written as rules on
// everything else: a directory that holds a hidden path (an ancestor) is expanded into its
// entries, every other entry gets one rule beneath it. An ancestor itself may be listed, so
// `ls ~` works; a secret store's names are then listable, never its contents. A symlink gets
// no rule: what it leads to has its own. An entry created later in an expanded directory has
// no rule either (it is unreadable until the sandbox is built again).
class ReadRules {
 public:
  ReadRules(RulesetBuilder& builder, const std::vector<std::string>& hidden)
      : builder_(builder), hidden_(hidden.begin(), hidden.end()) {
    for (const auto& path : hidden) {
      for (std::string dir = parent_of(path);; dir = parent_of(dir)) {
        ancestors_.insert(dir);
        if (dir == "/") break;
      }
    }
  }

  bool add() {
    if (hidden_.empty()) return builder_.allow("/", kReadRights);
    return expand("/");
  }

 private:
  bool expand(const std::string& dir) {
    if (!builder_.allow(dir, landlock::kReadDir)) return false;
    DIR* listing = ::opendir(dir.c_str());
    if (listing == nullptr) return true;  // unreadable to the host too: nothing to allow
    bool ok = true;
    while (ok) {
      const dirent* entry = ::readdir(listing);
      if (entry == nullptr) break;
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      std::string path = child_of(dir, entry->d_name);
      if (hidden_.count(path) != 0) continue;
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      if (S_ISDIR(st.st_mode) && ancestors_.count(path) != 0) {
        ok = expand(path);
      } else {
        ok = builder_.allow(path, kReadRights);
      }
    }
    ::closedir(listing);
    return ok;
  }

  RulesetBuilder& builder_;
  std::set<std::string> hidden_;
  std::set<std::string> ancestors_;
};

size_t attr_size(int abi) {
  if (abi >= 6) return sizeof(landlock::RulesetAttr);
  if (abi >= 4) return offsetof(landlock::RulesetAttr, scoped);
  return offsetof(landlock::RulesetAttr, handled_access_net);
}

}  // namespace

int build_ruleset(const FilesystemPolicy& policy, int abi, std::string& error) {
  landlock::RulesetAttr attr{};
  attr.handled_access_fs = landlock::handled_fs_rights(abi);
  // No rule for the network rights: handled and never granted is denied.
  if (abi >= 4 && !policy.network) {
    attr.handled_access_net = landlock::kNetBindTcp | landlock::kNetConnectTcp;
  }
  // A job may not signal processes outside its sandbox (the host, Neovim, the user's others)
  // nor connect to an abstract unix socket they listen on (X11, D-Bus, agents).
  if (abi >= 6) attr.scoped = landlock::kScopeAbstractUnixSocket | landlock::kScopeSignal;
  int fd = landlock::create_ruleset(&attr, attr_size(abi), 0);
  if (fd < 0) {
    error = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return -1;
  }
  RulesetBuilder builder(fd, attr.handled_access_fs);
  bool ok = true;
  for (const auto& path : policy.writable) {
    ok = ok && builder.allow(path, attr.handled_access_fs);
  }
  ok = ok && builder.allow("/dev/null", kDevNullRights);
  ok = ok && ReadRules(builder, policy.hidden).add();
  if (!ok) {
    error = builder.error();
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace toolhost::sandbox
