#pragma once
// The sandboxed child between clone and exec. It shares the host's memory (CLONE_VM, as glibc's
// posix_spawn does: no page tables copied) and runs while the host's thread waits
// (CLONE_VFORK), so it may only make system calls: no allocation, no lock, no stdio. Everything
// it needs is prepared by the parent in a ChildPlan; it applies it in order and execs.

#include <linux/filter.h>
#include <sys/types.h>

#include <cstddef>

namespace toolhost::sandbox {

// A path bound read-only onto itself. `locked_flags` are the mount's own nosuid, nodev, noexec
// and atime flags: inside a user namespace a remount must keep them, or it fails with EPERM.
struct ReadOnlyBind {
  const char* path;
  unsigned long locked_flags;
};

// A path no job may read, covered in the namespace: a directory by an empty read-only tmpfs
// whose root has mode 000, a file (or anything not a directory) by a bind of /dev/null. Landlock
// hides it already unless it lies beneath a writable place, whose rule grants reading too.
struct HiddenMount {
  const char* path;
  bool directory;
};

struct ChildPlan {
  // What to exec; nullptr for a trial (probe): apply everything, then _exit(0).
  const char* path = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  char* const* sh_argv = nullptr;  // {"/bin/sh", path, argv[1..]}: execvp's rule on ENOEXEC
  const char* cwd = nullptr;       // nullptr: the host's
  bool new_session = true;
  int in_fd = -1;   // -1: /dev/null
  int out_fd = -1;  // -1: left as inherited
  int err_fd = -1;

  // The user and mount namespace, made in the child; skipped when uid_map is nullptr.
  const char* uid_map = nullptr;  // "U U 1": the caller's real ids, mapped to themselves
  const char* gid_map = nullptr;
  const ReadOnlyBind* binds = nullptr;
  size_t bind_count = 0;
  const HiddenMount* hidden = nullptr;  // mounted after the binds: they cover what is below
  size_t hidden_count = 0;
  // Or one made before (hold_namespace), joined with setns(): both descriptors, or -1. The
  // child's cwd is then the namespace's root until it changes it: set `cwd`.
  int user_ns_fd = -1;
  int mount_ns_fd = -1;

  int ruleset_fd = -1;                  // Landlock; -1: none
  const sock_fprog* seccomp = nullptr;  // nullptr: none

  // Written by the child when a step fails (the parent reads them once clone returned: the
  // memory is shared, and CLONE_VFORK resumes the parent only after the exec or the exit).
  int error = 0;
  const char* failed_step = nullptr;
  const char* failed_path = nullptr;  // the hidden path the step could not cover, if any
};

// Starts the child that applies `plan` (then execs, or exits 0 for a trial). Returns 0 and the
// pid, or an errno value: clone's, or the step's that failed in the child; a child that failed
// is reaped here, so no zombie is left.
int start_child(ChildPlan& plan, pid_t& pid);

// Makes the user and mount namespace of `plan` (its maps and binds) in a child that exits at
// once, and returns in `user_fd` and `mount_fd` (close-on-exec) the descriptors that keep both
// alive for later children to join. Returns 0, or an errno value (`plan.failed_step` says
// which step).
int hold_namespace(ChildPlan& plan, int& user_fd, int& mount_fd);

}  // namespace toolhost::sandbox
