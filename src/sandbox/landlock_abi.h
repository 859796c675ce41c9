#pragma once
// Landlock's user-space ABI, carried here: glibc 2.36 has no wrappers, and bookworm's
// <linux/landlock.h> stops at ABI 2 (no TRUNCATE, no network rights, no scopes). Values from the
// kernel's include/uapi/linux/landlock.h (6.18); names in our own namespace so that a newer
// system header cannot clash with them.

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace toolhost::sandbox::landlock {

// ABI 1 = 5.13, 2 = 5.19 (REFER), 3 = 6.2 (TRUNCATE), 4 = 6.7 (TCP), 5 = 6.10 (IOCTL_DEV),
// 6 = 6.12 (scopes). Below 3 an O_TRUNC open of any readable file cannot be denied.
constexpr int kMinimumAbi = 3;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};

// A rule's parent_fd directly follows allowed_access: the kernel's struct is packed.
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

constexpr uint32_t kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

// Filesystem rights.
constexpr uint64_t kExecute = 1ULL << 0;
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kReadFile = 1ULL << 2;
constexpr uint64_t kReadDir = 1ULL << 3;
constexpr uint64_t kRemoveDir = 1ULL << 4;
constexpr uint64_t kRemoveFile = 1ULL << 5;
constexpr uint64_t kMakeChar = 1ULL << 6;
constexpr uint64_t kMakeDir = 1ULL << 7;
constexpr uint64_t kMakeReg = 1ULL << 8;
constexpr uint64_t kMakeSock = 1ULL << 9;
constexpr uint64_t kMakeFifo = 1ULL << 10;
constexpr uint64_t kMakeBlock = 1ULL << 11;
constexpr uint64_t kMakeSym = 1ULL << 12;
constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;  // ABI 5

// The rights a rule on a file (not a directory) may carry; the kernel refuses others (EINVAL).
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

// Network rights (ABI 4): TCP only.
constexpr uint64_t kNetBindTcp = 1ULL << 0;
constexpr uint64_t kNetConnectTcp = 1ULL << 1;

// Scopes (ABI 6): what a process in the domain may not reach outside it.
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;
constexpr uint64_t kScopeSignal = 1ULL << 1;

// Every filesystem right the ABI knows: all of them handled, so none is left unrestricted.
inline uint64_t handled_fs_rights(int abi) {
  uint64_t rights = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile |
                    kMakeChar | kMakeDir | kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

inline int create_ruleset(const RulesetAttr* attr, size_t size, uint32_t flags) {
  return static_cast<int>(::syscall(SYS_landlock_create_ruleset, attr, size, flags));
}

inline int add_rule(int ruleset_fd, int rule_type, const void* attr, uint32_t flags) {
  return static_cast<int>(::syscall(SYS_landlock_add_rule, ruleset_fd, rule_type, attr, flags));
}

inline int restrict_self(int ruleset_fd, uint32_t flags) {
  return static_cast<int>(::syscall(SYS_landlock_restrict_self, ruleset_fd, flags));
}

}  // namespace toolhost::sandbox::landlock
