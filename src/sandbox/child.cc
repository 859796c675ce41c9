#include "sandbox/child.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "sandbox/landlock_abi.h"

// The child's code runs on a stack the parent mapped, in the parent's memory: a sanitizer's
// bookkeeping (ASan's redzones in the shared shadow memory, UBSan's reports that allocate)
// would be left behind in the host by a child that execs, so it is not instrumented.
#define TOOLHOST_CHILD_CODE __attribute__((no_sanitize("address", "undefined"), noinline))

namespace toolhost::sandbox {
namespace {

// Records the failed step and ends the child; the parent reads both after clone returns.
[[noreturn]] TOOLHOST_CHILD_CODE void fail(ChildPlan& plan, const char* step) {
  plan.error = errno != 0 ? errno : EINVAL;
  plan.failed_step = step;
  ::_exit(127);
}

// The host's handlers point into the host's code, and an ignored signal (the host ignores
// SIGPIPE) would be inherited through exec: every signal goes back to its default, as
// posix_spawn's SETSIGDEF did. Through the kernel's rt_sigaction, not glibc's sigaction, which
// refuses glibc's own two real-time signals (32, 33): a host started with those ignored (a CI
// runner's) passed them on to every job. The kernel's struct, all zeros, is SIG_DFL with no
// flags and no mask.
TOOLHOST_CHILD_CODE void reset_signal_dispositions() {
  struct {
    void* handler;
    unsigned long flags;
    void* restorer;
    unsigned long mask;
  } default_action;
  std::memset(&default_action, 0, sizeof default_action);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::syscall(SYS_rt_sigaction, sig, &default_action, nullptr, sizeof default_action.mask);
  }
}

// dup2 onto itself would leave the descriptor close-on-exec: clear the flag instead.
TOOLHOST_CHILD_CODE bool place_fd(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

TOOLHOST_CHILD_CODE void redirect_stdio(ChildPlan& plan) {
  if (plan.in_fd >= 0) {
    if (!place_fd(plan.in_fd, 0)) fail(plan, "dup2 stdin");
  } else {
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || !place_fd(null_fd, 0)) fail(plan, "open /dev/null");
    if (null_fd != 0) ::close(null_fd);
  }
  if (plan.out_fd >= 0 && !place_fd(plan.out_fd, 1)) fail(plan, "dup2 stdout");
  if (plan.err_fd >= 0 && !place_fd(plan.err_fd, 2)) fail(plan, "dup2 stderr");
}

TOOLHOST_CHILD_CODE bool write_file(const char* path, const char* text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t length = std::strlen(text);
  bool written = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return written;
}

// A user namespace gives the child the right to mount (as a user too), with its own ids mapped
// to themselves so that files keep their owners; setgroups must be denied before an unprivileged
// gid_map is accepted. The mounts are slaves: nothing reaches the host's namespace, while what
// the host mounts later still shows in a namespace that is held and joined for a long time. Each
// bind is made read-only before Landlock forbids any further mount, umount included; then the
// hidden paths are covered (a job cannot unmount the cover either).
TOOLHOST_CHILD_CODE void enter_namespace(ChildPlan& plan) {
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) fail(plan, "unshare user and mount namespace");
  if (!write_file("/proc/self/setgroups", "deny")) fail(plan, "write /proc/self/setgroups");
  if (!write_file("/proc/self/uid_map", plan.uid_map)) fail(plan, "write /proc/self/uid_map");
  if (!write_file("/proc/self/gid_map", plan.gid_map)) fail(plan, "write /proc/self/gid_map");
  if (::mount("none", "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
    fail(plan, "make the mounts slaves");
  }
  for (size_t i = 0; i < plan.bind_count; ++i) {
    const ReadOnlyBind& bind = plan.binds[i];
    if (::mount(bind.path, bind.path, nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      fail(plan, "bind a protected path");
    }
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | bind.locked_flags;
    if (::mount(nullptr, bind.path, nullptr, flags, nullptr) != 0) {
      fail(plan, "remount a protected path read-only");
    }
  }
  for (size_t i = 0; i < plan.hidden_count; ++i) {
    const HiddenMount& hidden = plan.hidden[i];
    int result = hidden.directory
                     ? ::mount("none", hidden.path, "tmpfs",
                               MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k")
                     : ::mount("/dev/null", hidden.path, nullptr, MS_BIND, nullptr);
    if (result != 0) {
      plan.failed_path = hidden.path;
      fail(plan, "cover a hidden path");
    }
  }
}

// Joining a held namespace costs two system calls, where making one costs the unshare, the id
// maps and the mounts at each spawn, and its teardown at each exit (the host sees the job end
// only once the kernel has unmounted its copies). The user namespace first: it gives the right
// to join the mount namespace it owns.
TOOLHOST_CHILD_CODE void join_namespace(ChildPlan& plan) {
  if (::setns(plan.user_ns_fd, CLONE_NEWUSER) != 0) fail(plan, "join the user namespace");
  if (::setns(plan.mount_ns_fd, CLONE_NEWNS) != 0) fail(plan, "join the mount namespace");
}

// hold_namespace's child: shares the host's descriptor table (CLONE_FILES), so that the two it
// opens stay with the host after it exits. It touches nothing else of that table.
TOOLHOST_CHILD_CODE int holder_main(void* argument) {
  ChildPlan& plan = *static_cast<ChildPlan*>(argument);
  enter_namespace(plan);
  plan.user_ns_fd = ::open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
  if (plan.user_ns_fd < 0) fail(plan, "open /proc/self/ns/user");
  plan.mount_ns_fd = ::open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  if (plan.mount_ns_fd < 0) fail(plan, "open /proc/self/ns/mnt");
  ::_exit(0);
}

TOOLHOST_CHILD_CODE int child_main(void* argument) {
  ChildPlan& plan = *static_cast<ChildPlan*>(argument);
  reset_signal_dispositions();
  // A session and process group of its own, as posix_spawn's SETSID (see jobs/spawn.cc).
  if (plan.new_session && ::setsid() < 0) fail(plan, "setsid");
  redirect_stdio(plan);
  if (plan.mount_ns_fd >= 0) {
    join_namespace(plan);
  } else if (plan.uid_map != nullptr) {
    enter_namespace(plan);
  }
  // After the binds: a cwd inside a protected directory then lies on its read-only mount.
  if (plan.cwd != nullptr && ::chdir(plan.cwd) != 0) fail(plan, "chdir");
  // Required by landlock_restrict_self and by an unprivileged seccomp filter; also keeps a
  // setuid program from gaining what the sandbox took away.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(plan, "PR_SET_NO_NEW_PRIVS");
  if (plan.ruleset_fd >= 0 && landlock::restrict_self(plan.ruleset_fd, 0) != 0) {
    fail(plan, "landlock_restrict_self");
  }
  // Last: from here on the filter applies to this child's own calls too.
  if (plan.seccomp != nullptr &&
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, plan.seccomp) != 0) {
    fail(plan, "seccomp");
  }
  if (plan.path == nullptr) ::_exit(0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.path, plan.argv, plan.envp);
  if (errno == ENOEXEC && plan.sh_argv != nullptr) {
    ::execve("/bin/sh", plan.sh_argv, plan.envp);
  }
  fail(plan, "execve");
}

// The child's stack: small frames and no recursion need little; a guard page below it turns an
// overflow into a fault instead of a write into the host's memory.
constexpr size_t kGuardSize = 4096;
constexpr size_t kStackSize = 64 * 1024;

// Runs `entry` on `plan` in a child that shares the host's memory until it execs or exits.
int clone_child(int (*entry)(void*), int extra_flags, ChildPlan& plan, pid_t& pid) {
  plan.error = 0;
  plan.failed_step = nullptr;
  plan.failed_path = nullptr;
  void* mapping = ::mmap(nullptr, kGuardSize + kStackSize, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mapping == MAP_FAILED) return errno;
  ::mprotect(mapping, kGuardSize, PROT_NONE);
  char* stack_top = static_cast<char*>(mapping) + kGuardSize + kStackSize;

  // Every signal blocked across the clone: a handler of the host must never run on the child's
  // stack, in the host's memory, before the child has reset the dispositions.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t child = ::clone(entry, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD | extra_flags, &plan);
  int clone_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::munmap(mapping, kGuardSize + kStackSize);
  if (child < 0) return clone_error;
  if (plan.error != 0) {
    // Exited with 127 already (CLONE_VFORK): reap it now.
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    return plan.error;
  }
  pid = child;
  return 0;
}

}  // namespace

int start_child(ChildPlan& plan, pid_t& pid) {
  return clone_child(child_main, 0, plan, pid);
}

int hold_namespace(ChildPlan& plan, int& user_fd, int& mount_fd) {
  plan.user_ns_fd = plan.mount_ns_fd = -1;
  pid_t pid = -1;
  int error = clone_child(holder_main, CLONE_FILES, plan, pid);
  if (error != 0) {
    // A step after the first open failed: that descriptor is the host's now.
    if (plan.user_ns_fd >= 0) ::close(plan.user_ns_fd);
    return error;
  }
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  user_fd = plan.user_ns_fd;
  mount_fd = plan.mount_ns_fd;
  return 0;
}

}  // namespace toolhost::sandbox
