#pragma once
// The user and mount namespace of a sandbox, with its read-only binds, made once and joined by
// each job's child with setns(). Making one per job cost the unshare, the id maps and the mounts
// at each spawn, and its teardown at each exit: the host saw a job end 0.3-0.5 ms late, while
// the kernel unmounted its copies (bench/NOTES.md, P10). Made again when the binds or the covers
// of hidden paths a spawn needs are not those it holds: a protected name or a hidden path
// created, or replaced by another file.

#include <string>
#include <vector>

#include "sandbox/hidden_paths.h"
#include "sandbox/protected_paths.h"

namespace toolhost::sandbox {

class HeldNamespace {
 public:
  HeldNamespace() = default;
  ~HeldNamespace();
  HeldNamespace(const HeldNamespace&) = delete;
  HeldNamespace& operator=(const HeldNamespace&) = delete;

  // Holds a namespace with `binds` and `hidden` covered (made now unless the one held has
  // exactly those) and the id maps. Returns 0, or an errno value and the step that failed.
  int hold(const ReadOnlyBinds& binds, const HiddenMounts& hidden, const char* uid_map,
           const char* gid_map, std::string& failed_step);

  int user_fd() const { return user_fd_; }
  int mount_fd() const { return mount_fd_; }

 private:
  void release();

  std::vector<ReadOnlyBinds::Held> binds_;
  std::vector<ReadOnlyBinds::Held> hidden_;
  int user_fd_ = -1;
  int mount_fd_ = -1;
};

}  // namespace toolhost::sandbox
